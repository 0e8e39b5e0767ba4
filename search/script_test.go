package search

import (
	"strings"
	"testing"
)

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
			got := ids(docs, hits)
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
