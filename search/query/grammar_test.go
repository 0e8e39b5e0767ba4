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
		// Japanese: particles and endings.
		{"米国株の過去のチャートを見たい", []string{"の過", "のチ", "見た", "たい"}, []string{"株の", "国株", "トを"}},
		{"ファイルを削除してください", []string{"を削", "除し", "して", "てく", "くだ", "ださ", "さい"}, []string{"ルを", "削除"}},
		{"見てください", []string{"見て", "てく", "さい"}, nil},
		// A verb's ending is grammar; a case particle after a word is the
		// word's end.
		{"画像を生成してチャットに送る", []string{"成し", "して", "てチ"}, []string{"像を", "生成", "トに", "送る"}},
		// A word of the lexicon written with hiragana keeps its pairs; the
		// pair from a word's okurigana into the next word is light.
		{"友だち全員に送る", []string{"ち全"}, []string{"友だ", "だち", "全員", "送る"}},
		{"駅まで歩いて行くルート", []string{"まで", "いて", "て行", "くル"}, []string{"駅ま", "行く"}},
		// Okurigana between kanji is part of a compound; a verb written
		// with kanji and okurigana keeps its pairs, and so does the pair of
		// a particle and the verb's kanji, the one pair 消す shares with 消します.
		{"注文の取り消し", nil, []string{"注文", "取り", "り消", "消し"}},
		{"商品の一覧を絞り込み", []string{"の一"}, []string{"一覧", "を絞", "絞り", "り込", "込み"}},
		{"顧客の問い合わせを登録", []string{"を登"}, []string{"の問", "問い", "い合", "合わ", "わせ", "登録"}},
		{"タスクの割り当て", nil, []string{"割り", "り当", "当て"}},
		{"履歴を消す", nil, []string{"を消", "消す"}},
		{"履歴を消します", []string{"消し", "しま", "ます"}, []string{"を消"}},
		{"ページを作る", nil, []string{"を作", "作る"}},
		{"ダイアログを閉じる", nil, []string{"閉じ", "じる"}},
		{"時間がかかって", []string{"って"}, []string{"時間", "かか"}},
		// Words written in hiragana are words, and so is the honorific お.
		{"テキストをひらがなに変換", []string{"をひ", "に変"}, []string{"ひら", "らが", "がな", "変換"}},
		{"おすすめの本", []string{"の本"}, []string{"おす", "すす", "すめ"}},
		{"お気に入りに追加", []string{"に追"}, []string{"お気", "気に", "に入", "入り"}},
		{"お知らせを送る", nil, []string{"お知", "知ら", "らせ"}},
		{"ごみ箱を空にする", []string{"にす", "する"}, []string{"ごみ", "み箱"}},
		// Chinese: particles, asking words, measure words.
		{"重新跑一下失败的流水线", []string{"一下", "的流"}, []string{"跑一", "失败", "败的", "重新"}},
		{"帮我看看有没有新邮件", []string{"帮我", "我看", "看看", "有没", "没有"}, []string{"新邮", "邮件"}},
		{"这个文件的内容", []string{"这个", "的内"}, []string{"文件", "件的", "内容"}},
		// The pair that begins at a grammar word's last character may begin
		// a word: 下单 (place an order), 下午 (afternoon), 个月 (month).
		{"统一下单接口", []string{"一下"}, []string{"统一", "下单"}},
		{"一下午的会议", nil, []string{"下午"}},
		{"这个月的账单", []string{"这个"}, []string{"个月"}},
		// 方法 and 방법 name a method (HTTP方法, 支付方法).
		{"HTTP方法", nil, []string{"方法"}},
		{"支付方法列表", nil, []string{"支付", "付方", "方法"}},
		{"결제 방법", nil, []string{"결제", "방법"}},
		// Chinese prepositions alone beside a Latin word of the chunk.
		{"在Trello上新建卡片", []string{"在"}, []string{"新建", "卡片"}},
		{"用Python读取CSV", []string{"用"}, []string{"读取"}},
		{"中 英 翻译", nil, []string{"中", "英", "翻译"}},
		// Korean: asking words (whole words only) and endings of two
		// syllables.
		{"서울에서 날씨 알려줘", []string{"에서", "알려", "려줘"}, []string{"서울", "울에", "날씨"}},
		{"일정을 추가해줘", []string{"해줘"}, []string{"일정", "정을", "추가", "가해"}},
		{"고양이 그림 그려줘", []string{"려줘"}, []string{"고양", "양이", "그림", "그려"}},
		{"좀 도와줘", []string{"좀"}, nil},
		{"좀비 게임", nil, []string{"좀비", "게임"}},
		{"캐나다 날씨", nil, []string{"캐나", "나다"}},
		// A postposition after a Latin word of the same chunk, before
		// grammar; before a word it begins the word.
		{"Sentry上的报错", []string{"上的", "的报"}, []string{"报错"}},
		{"GitHub上传文件", nil, []string{"上传", "文件"}},
		{"Python中文分词", nil, []string{"中文", "分词"}},
		{"GitHub 中文文档", nil, []string{"中文", "文档"}},
		{"Redis中间件", nil, []string{"中间", "间件"}},
		{"Excel对比", nil, []string{"对比"}},
		{"S3对象存储", nil, []string{"对象", "存储"}},
	}
	for _, tt := range tests {
		weight := termWeights(tt.query, map[string]int32{}, nil)
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
