package query

import "testing"

// TestGrammarPairsWeighLittle: a CJK character pair that begins with the
// request's grammar (a particle, an ending, an asking word, a measure
// word) or ends in a Japanese inflection weighs grammarPairWeight; a pair
// of the request's words, a pair that ends in a case particle or a Chinese
// particle, and a pair inside a word the lexicon knows keep their weight.
func TestGrammarPairsWeighLittle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query       string
		light, full []string
	}{
		// Japanese: hiragana particles and endings.
		{"米国株の過去のチャートを見たい", []string{"の過", "のチ", "を見", "たい", "見た"}, []string{"株の", "国株", "トを"}},
		{"ファイルを削除してください", []string{"除し", "して", "てく", "くだ", "ださ", "さい"}, []string{"ルを", "削除"}},
		// A verb's inflection is grammar; a case particle after a word is the
		// word's end.
		{"画像を生成してチャットに送る", []string{"成し", "して", "てチ"}, []string{"像を", "生成", "トに"}},
		// A word of the lexicon written with hiragana keeps its pairs.
		{"友だち全員に送る", []string{"ち全", "に送"}, []string{"友だ", "だち", "全員", "送る"}},
		// Chinese: particles, asking words, measure words.
		{"重新跑一下失败的流水线", []string{"一下", "下失", "的流"}, []string{"跑一", "失败", "败的", "重新"}},
		{"帮我看看有没有新邮件", []string{"帮我", "我看", "看看", "看有", "有没", "没有", "有新"}, []string{"新邮", "邮件"}},
		{"这个文件的内容", []string{"这个", "个文", "的内"}, []string{"文件", "件的", "内容"}},
		// Chinese prepositions alone between Latin words.
		{"在Trello上新建卡片", []string{"在"}, []string{"新建", "卡片"}},
		{"用Python读取CSV", []string{"用"}, []string{"读取"}},
		// Korean: asking words and endings of two syllables.
		{"서울에서 날씨 알려줘", []string{"에서", "알려", "려줘"}, []string{"서울", "울에", "날씨"}},
		{"일정을 추가해줘", []string{"해줘"}, []string{"일정", "정을", "추가", "가해"}},
		{"고양이 그림 그려줘", []string{"려줘"}, []string{"고양", "양이", "그림", "그려"}},
		// A postposition that opens a run after a Latin word.
		{"Sentry上最新的报错", []string{"上最", "的报"}, []string{"最新", "新的", "报错"}},
		{"GitHub上传文件", nil, []string{"上传", "文件"}},
	}
	for _, tt := range tests {
		terms, _ := analyseQuery(tt.query, map[string]int32{})
		weight := map[string]float64{}
		for _, q := range terms {
			weight[q.Text] = q.Weight
		}
		for _, p := range tt.light {
			if w, ok := weight[p]; !ok || w > grammarPairWeight {
				t.Errorf("%q: pair %q weighs %v (present %v), want %v", tt.query, p, w, ok, grammarPairWeight)
			}
		}
		for _, p := range tt.full {
			if w, ok := weight[p]; !ok || w <= grammarPairWeight {
				t.Errorf("%q: pair %q weighs %v (present %v), want more than %v", tt.query, p, w, ok, grammarPairWeight)
			}
		}
	}
}
