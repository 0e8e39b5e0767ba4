package search

import (
	"slices"
	"testing"
)

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
		// Decoys of a second sense: a forecast is the weather's, a check a
		// service's.
		mk("en", "all_forecast", "Forecast for tomorrow."),
		mk("en", "stock_quotes", "Stock price quotes."),
		mk("en", "all_checks", "Check the status of a service in a city."),
		mk("en", "city_weather", "Current weather in a city."),
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
		{"明天的股价预测", "mcp__en__stock_quotes"},
		{"東京の天気を確認", "mcp__en__city_weather"},
		{"서울 날씨 확인해줘", "mcp__en__city_weather"},
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, tt.want)
	}
}

// TestForeignWordsKeepOtherSenses: a word of another language that the
// lexicon could have taken for a tool word, but whose letters are also an
// English word (résumé is resume folded, récent recent, vérifier verifier),
// a grammar word (Chinese 比较 "rather",
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
		// A tool word's second sense is another tool's: a forecast is the
		// weather's, a check a service's status, an evaluation a browser's
		// script, a repair the system's.
		{"明天的股价预测", []string{"prediction"}, []string{"forecast"}},
		{"東京の天気を確認", nil, []string{"check"}},
		{"서울 날씨 확인해줘", nil, []string{"check"}},
		{"撤销访问令牌", []string{"revoke"}, []string{"revert"}},
		{"重复提醒", []string{"repeat"}, []string{"duplicate"}},
		{"删除重复数据", []string{"duplicate"}, nil},
		{"评估这段代码", nil, []string{"evaluate"}},
		{"修复这个bug", []string{"fix"}, []string{"repair"}},
		{"suivre un utilisateur", []string{"follow"}, []string{"track"}},
		{"数据看板", []string{"dashboard"}, nil},
		{"이 오류 설명해줘", []string{"explain"}, []string{"description"}},
		{"会議の開始時間を変更", nil, []string{"start"}},
		// Relatively (比較的, 비교적) compares nothing.
		{"比較的新しいファイル", nil, []string{"compare"}},
		{"비교적 최근 커밋", nil, []string{"compare"}},
		// Last month is no latest; active sessions enable nothing; a big
		// file (große) has no size.
		{"le mois dernier", nil, []string{"latest"}},
		{"mostrar las sesiones activas", nil, []string{"enable"}},
		{"die große Datei öffnen", nil, []string{"size"}},
		// Katakana words inside longer ones: a receipt has no sheet, a cash
		// flow statement no cache.
		{"レシートを読み取る", nil, []string{"sheet"}},
		{"キャッシュフロー計算書", nil, []string{"cache"}},
		// A coordinator is no coordinate, a lens (объектив) no object.
		{"координатор проекта", nil, []string{"coordinate"}},
		{"объектив камеры", nil, []string{"object"}},
		{"подтверждение заказа", []string{"confirm"}, nil},
		// 보여줘 ("show me") ends many Korean requests as a courtesy: it is
		// no git show, nor a word to outweigh what is to be shown.
		{"파일 내용 보여줘", []string{"file"}, []string{"show"}},
		{"폴더 구조 보여줘", []string{"folder"}, []string{"show"}},
		// An idiom: as a rule (por regla general) is no
		// rule of a firewall.
		{"por regla general tarda poco", nil, []string{"rule"}},
		{"añadir una regla al cortafuegos", []string{"rule"}, nil},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}

// TestIndexReadsStemPhrases: a description is read with the lexicon's
// phrases of a plain word and a stem as a request is: a server working в
// качестве ("as") a proxy is no quality tool, while data о качестве воздуха
// is about quality.
func TestIndexReadsStemPhrases(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "proxy", Server: "net", Tool: "run_proxy", Description: "Сервер работает в качестве прокси"},
		{ID: "air", Server: "env", Tool: "air_data", Description: "Данные о качестве воздуха"},
	}
	ix := New(docs)
	got := ids(docs, ix.Search("quality", 5))
	if !slices.Contains(got, "air") || slices.Contains(got, "proxy") {
		t.Errorf("Search(quality) = %v, want air and no proxy", got)
	}
}
