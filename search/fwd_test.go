package search

import "testing"

// TestForeignRequestMeetsEnglishToolWords: the everyday words of requests
// written in Chinese, Japanese, Korean, Russian, German, Spanish and French
// for what the English-described tools share (cancelling, subscriptions,
// drafts, diffs, quality, devices, results) bring the request to the tool
// that says so rather than to one that shares only its main noun. The
// decoys' names sort first, so a decoy wins a tie.
func TestForeignRequestMeetsEnglishToolWords(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		mk("en", "all_subscriptions", "List the subscriptions of the account."),
		mk("en", "cancel_subscription", "Cancel a subscription."),
		mk("en", "all_emails", "List sent emails."),
		mk("en", "save_draft", "Save an email as a draft to send later."),
		mk("en", "all_versions", "List the versions of a file."),
		mk("en", "compare_versions", "Compare two versions of a file and show the diff."),
		mk("en", "air_forecast", "Air temperature and wind forecast."),
		mk("en", "air_quality", "Air quality index and pollutants."),
		mk("en", "all_accounts", "List the accounts."),
		mk("en", "list_devices", "List the devices registered to the account."),
	}
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"取消订阅", "mcp__en__cancel_subscription"},
		{"比较文件两个版本的差异", "mcp__en__compare_versions"},
		{"明天的空气质量", "mcp__en__air_quality"},
		{"ファイルの2つのバージョンを比較", "mcp__en__compare_versions"},
		{"구독 취소", "mcp__en__cancel_subscription"},
		{"파일 두 버전 비교", "mcp__en__compare_versions"},
		{"отменить подписку", "mcp__en__cancel_subscription"},
		{"черновик письма", "mcp__en__save_draft"},
		{"Abonnement stornieren", "mcp__en__cancel_subscription"},
		{"registrierte Geräte anzeigen", "mcp__en__list_devices"},
		{"cancelar la suscripción", "mcp__en__cancel_subscription"},
		{"annuler l'abonnement", "mcp__en__cancel_subscription"},
		{"liste des appareils", "mcp__en__list_devices"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.want)
	}
}

// TestForeignWordsKeepOtherSenses: a word of another language that the
// lexicon could have taken for a tool word, but whose letters are also an
// English word (résumé is resume folded, récent recent, vérifier verifier),
// ), a grammar word (Chinese 比较 "rather",
// Russian в качестве "as"), another word of the same letters (Spanish
// publica "publishes", Russian отменный "excellent", German wissen "to
// know"), a phrase of grammar (German in der Regel "usually", French en
// fonction de "depending on"), a word's sense in programming (动态 in 动态规划
// "dynamic") or a longer word (对比度 contrast) brings no sense of the tool
// word.
func TestForeignWordsKeepOtherSenses(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query    string
		has, not []string
	}{
		{"resume workflow", []string{"resume"}, []string{"summary"}},
		{"recent commits", []string{"recent"}, []string{"latest"}},
		{"pkce code verifier", nil, []string{"check"}},
		{"这个办法比较好", nil, []string{"compare"}},
		{"调整屏幕对比度", []string{"contrast"}, []string{"compare"}},
		{"в качестве примера", nil, []string{"quality"}},
		{"отменный результат", []string{"result"}, []string{"cancel"}},
		{"publica el artículo en el blog", nil, []string{"public"}},
		{"ich möchte wissen wie spät es ist", nil, []string{"knowledge"}},
		{"动态规划算法", nil, []string{"activity", "feed"}},
		{"in der Regel dauert es lange", nil, []string{"rule"}},
		{"en fonction de la date", nil, []string{"function"}},
		// Only the phrase в качестве ("as") keeps качестве from quality:
		// о качестве is about quality.
		{"отчёт о качестве кода", []string{"quality"}, nil},
		{"данные о качестве воздуха", []string{"quality"}, nil},
		// A key in the middle of a run takes no character from the words on
		// both sides.
		{"误差分析", []string{"analysis"}, []string{"diff"}},
		{"方差分析", []string{"analysis"}, []string{"diff"}},
		{"数据集成", []string{"integration"}, []string{"dataset"}},
		{"大数据集群", []string{"cluster"}, []string{"dataset"}},
		{"提供商品信息", []string{"product"}, []string{"provider"}},
		{"投资产品", []string{"product"}, []string{"asset"}},
		{"付费用户", []string{"user"}, []string{"cost"}},
		{"收费用户", []string{"user"}, []string{"cost"}},
		{"暂停用户", []string{"user"}, []string{"disable"}},
		{"员工工作表现评价", nil, []string{"sheet"}},
		// A coordinator is no coordinate, a lens (объектив) no object.
		{"координатор проекта", nil, []string{"coordinate"}},
		{"объектив камеры", nil, []string{"object"}},
		{"подтверждение заказа", []string{"confirm"}, nil},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}
