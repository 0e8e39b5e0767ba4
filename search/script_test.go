package search

import (
	"reflect"
	"strings"
	"testing"
)

// words returns forEachWord's words of s, a whole camelCase word marked "*".
func words(s string) []string {
	var out []string
	forEachWord(s, nil, func(w []byte, whole bool) {
		t := string(w)
		if whole {
			t += "*"
		}
		out = append(out, t)
	})
	return out
}

func TestScriptWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"Han run as bigrams", "数据库查询", []string{"数据", "据库", "库查", "查询"}},
		{"Han two characters", "天气", []string{"天气"}},
		{"Han single character kept", "书 と 本", []string{"书", "と", "本"}},
		{"Han runs apart at punctuation", "查询天气，返回结果。", []string{"查询", "询天", "天气", "返回", "回结", "结果"}},
		{"Hiragana", "けんさく", []string{"けん", "んさ", "さく"}},
		{"Katakana with prolonged sound mark", "データベース", []string{"デー", "ータ", "タベ", "ベー", "ース"}},
		{"Kana and Han in one run", "検索する", []string{"検索", "索す", "する"}},
		{"Hangul", "검색합니다", []string{"검색", "색합", "합니", "니다"}},
		{"Hangul words apart at spaces", "주식 시세", []string{"주식", "시세"}},
		{"full-width Latin", "ＧｉｔＨｕｂ", []string{"git", "hub", "github*"}},
		{"full-width digits", "ｖ２", []string{"v2"}},
		{"half-width katakana", "ﾃﾞｰﾀﾍﾞｰｽ", []string{"デー", "ータ", "タベ", "ベー", "ース"}},
		{"Latin then Han", "GitHub仓库", []string{"git", "hub", "github*", "仓库"}},
		{"Han then Latin", "仓库GitHub", []string{"仓库", "git", "hub", "github*"}},
		{"Latin digits then Kana", "3dモデル", []string{"3d", "モデ", "デル"}},
		{"digit between Han", "第3章", []string{"第", "3", "章"}},
		{"Latin then Cyrillic", "APIключ", []string{"api", "ключ"}},
		{"Cyrillic lower-cased", "Погода", []string{"погода"}},
		{"Cyrillic yo folded", "Ёлка счёт", []string{"елка", "счет"}},
		{"Cyrillic camelCase", "ПолучитьДанные", []string{"получить", "данные", "получитьданные*"}},
		{"Greek final sigma and accents", "Καιρός ΚΑΙΡΟΣ", []string{"καιροσ", "καιροσ"}},
		{"Greek diaeresis", "Ευρωπαϊκός", []string{"ευρωπαικοσ"}},
		{"combining accent composed", "e\u0301cole", []string{"école"}},
		{"variation selector is no letter", "⚠\ufe0fWarning", []string{"warning"}},
		{"Latin with accents unchanged", "Größe ändern", []string{"größe", "ändern"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := words(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("forEachWord(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestScriptWordsNotStemmed checks that the English plural folding, which
// strips an ASCII "s", leaves other scripts' words alone.
func TestScriptWordsNotStemmed(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"погода прогнозы":   {"погода", "прогнозы"},
		"Файлы":             {"файлы"},
		"λέξεις":            {"λεξεισ"},
		"ファイルs":             {"ファ", "ァイ", "イル"},     // the trailing "s" is a stop word
		"archivos ficheros": {"archivo", "fichero"}, // Latin script: folded as before
	}
	for in, want := range tests {
		if got := tokens(in); !reflect.DeepEqual(got, want) {
			t.Errorf("tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBigramsLinear counts the work of reading a run of 10,000 CJK
// characters: one bigram per character after the first, each two characters
// long, and as many allocations as for a run a tenth as long. It is not
// parallel: AllocsPerRun needs the process to itself.
func TestBigramsLinear(t *testing.T) {
	run := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteRune(rune(0x4E00 + i*7919%20000))
		}
		return b.String()
	}
	long, short := run(10000), run(1000)
	calls, bytes := 0, 0
	forEachWord(long, nil, func(w []byte, whole bool) {
		calls++
		bytes += len(w)
		if whole || len([]rune(string(w))) != 2 {
			t.Fatalf("word %q (whole %v) is not a bigram", w, whole)
		}
	})
	if calls != 9999 || bytes != 9999*6 {
		t.Errorf("10,000 characters gave %d words of %d bytes, want 9999 of %d", calls, bytes, 9999*6)
	}
	buf := make([]byte, 0, 64)
	allocs := func(s string) float64 {
		return testing.AllocsPerRun(5, func() { forEachWord(s, buf, func([]byte, bool) {}) })
	}
	if a, b := allocs(short), allocs(long); b > a {
		t.Errorf("allocations grow with the run: %v for 1,000 characters, %v for 10,000", a, b)
	}

	// The query analysis keeps one term per distinct bigram, each standing
	// for one original word.
	terms, _ := analyseQuery(long, map[string]int32{})
	if len(terms) != 9999 {
		t.Errorf("analyseQuery of 10,000 distinct characters has %d terms, want 9999", len(terms))
	}
}

// TestSearchEveryScript ranks a tiny catalog of tools described in Chinese,
// Japanese, Korean, Russian and Greek among English tools of the same kinds
// and one another.
func TestSearchEveryScript(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "zh_weather", Server: "amap", Tool: "maps_weather", Description: "根据城市名称查询天气预报，返回未来几天的天气情况。"},
		{ID: "zh_driving", Server: "amap", Tool: "maps_direction_driving", Description: "驾车路径规划，根据起点和终点坐标规划驾车出行路线。"},
		{ID: "zh_database", Server: "dbhub", Tool: "execute_sql", Description: "执行数据库查询语句并返回结果。"},
		{ID: "ja_restaurant", Server: "gourmet", Tool: "search_shops", Description: "指定した地域のレストランを検索します。"},
		{ID: "ja_translate", Server: "deepl", Tool: "translate", Description: "テキストを日本語から英語に翻訳します。"},
		{ID: "ko_stock", Server: "krx", Tool: "get_quote", Description: "주식 시세를 조회합니다. 종목 코드로 현재 주가를 확인합니다."},
		{ID: "ko_message", Server: "kakao", Tool: "send", Description: "채널에 메시지를 보냅니다."},
		{ID: "ru_weather", Server: "yandex", Tool: "current", Description: "Текущая погода и прогноз на неделю для указанного города."},
		{ID: "ru_invoice", Server: "billing", Tool: "create_invoice", Description: "Создать счёт для клиента."},
		{ID: "el_weather", Server: "meteo", Tool: "forecast", Description: "Ο καιρός για τις επόμενες ημέρες."},
		{ID: "en_weather", Server: "weather", Tool: "get_forecast", Description: "Get the weather forecast for a city."},
		{ID: "en_directions", Server: "maps", Tool: "directions", Description: "Driving directions between two places."},
		{ID: "en_sql", Server: "postgres", Tool: "query", Description: "Run a read-only SQL query against the database."},
		{ID: "en_restaurants", Server: "yelp", Tool: "search_restaurants", Description: "Find restaurants near a location."},
		{ID: "en_translate", Server: "google", Tool: "translate_text", Description: "Translate text between languages."},
		{ID: "en_repo", Server: "github", Tool: "create_repository", Description: "Create a new GitHub repository."},
		{ID: "en_message", Server: "slack", Tool: "post_message", Description: "Post a message to a channel."},
	}
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"天气", "zh_weather"},   // a word inside a longer run
		{"查询天气", "zh_weather"}, // a query run read as bigrams too
		{"驾车路线", "zh_driving"},
		{"数据库", "zh_database"},
		{"レストラン検索", "ja_restaurant"},
		{"ﾚｽﾄﾗﾝ", "ja_restaurant"}, // half-width katakana
		{"翻訳", "ja_translate"},
		{"주가", "ko_stock"},
		{"주식 시세", "ko_stock"},
		{"메시지", "ko_message"},
		{"погода", "ru_weather"},
		{"Погода в городе", "ru_weather"},
		{"счет клиенту", "ru_invoice"},
		{"καιρός", "el_weather"},
		{"ΚΑΙΡΟΣ", "el_weather"},
		{"ＧｉｔＨｕｂ", "en_repo"}, // full-width Latin
		{"weather forecast", "en_weather"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || docs[hits[0].Doc].ID != tt.want {
			var got []string
			for _, h := range hits {
				got = append(got, docs[h.Doc].ID)
			}
			t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.want)
		}
	}
}

// TestFullWidthDescription checks width folding on the document side: a
// tool described in full-width letters is found by the ASCII word.
func TestFullWidthDescription(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "a", Server: "s", Tool: "sync", Description: "ＧｉｔＨｕｂのリポジトリを同期します"},
		{ID: "b", Server: "s", Tool: "other", Description: "Something else entirely"},
	}
	hits := New(docs).Search("github", 2)
	if len(hits) == 0 || docs[hits[0].Doc].ID != "a" {
		t.Errorf("Search(github) = %v, want the full-width description first", hits)
	}
}

// TestCJKFirstSentence checks that a CJK description's first sentence ends
// at its full stop and that a long one is cut at a character.
func TestCJKFirstSentence(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"查询天气。返回结果。", "查询天气"},
		{"天気を調べます！次に", "天気を調べます"},
		{"Plain text. More.", "Plain text"},
		{strings.Repeat("天", 100), strings.Repeat("天", 66)},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.in); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("数据", 1000)
	if cut, want := wordCut(long, maxDescBytes), (maxDescBytes+2)/3*3; cut != want {
		t.Errorf("wordCut of a CJK run at %d = %d, want %d, the first character from there", maxDescBytes, cut, want)
	}
}

// TestFullWidthQueryShape checks that a query is normalised before its
// words' shapes are read: a full-width file name is a file.
func TestFullWidthQueryShape(t *testing.T) {
	t.Parallel()
	terms, _ := analyseQuery("ｎｏｔｅｓ．ｍｄ", map[string]int32{})
	for _, qt := range terms {
		if qt.term == "file" {
			return
		}
	}
	t.Errorf("analyseQuery(ｎｏｔｅｓ．ｍｄ) = %v, want the term file", terms)
}
