package search

import (
	"slices"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// englishTools are tools described in English only, one per concept.
var englishTools = []Doc{
	{ID: "weather", Server: "weather", Tool: "get_forecast", Description: "Get the weather forecast for a city."},
	{ID: "read_file", Server: "fs", Tool: "read_file", Description: "Read the contents of a file from disk."},
	{ID: "delete_file", Server: "fs", Tool: "delete_file", Description: "Delete a file."},
	{ID: "list_dir", Server: "fs", Tool: "list_directory", Description: "List the entries of a directory."},
	{ID: "screenshot", Server: "browser", Tool: "take_screenshot", Description: "Take a screenshot of the current page."},
	{ID: "send_email", Server: "mail", Tool: "send_email", Description: "Send an email message to a recipient."},
	{ID: "stock", Server: "market", Tool: "get_stock_price", Description: "Get the latest stock price for a ticker symbol."},
	{ID: "translate", Server: "translator", Tool: "translate_text", Description: "Translate text between languages."},
	{ID: "directions", Server: "maps", Tool: "get_directions", Description: "Driving directions and the route between two places."},
	{ID: "event", Server: "calendar", Tool: "create_event", Description: "Create an event in the calendar."},
	{ID: "sql", Server: "db", Tool: "run_query", Description: "Run a SQL query against the database."},
	{ID: "news", Server: "news", Tool: "top_headlines", Description: "The latest news headlines."},
	{ID: "commit", Server: "git", Tool: "commit", Description: "Record staged changes in the repository."},
	{ID: "order", Server: "shop", Tool: "create_order", Description: "Place an order for a product and take the payment."},
}

// TestForeignRequestReachesEnglishTool: a request in each language of the
// bilingual lexicon finds the English-described tool for it first.
func TestForeignRequestReachesEnglishTool(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct{ lang, query, want string }{
		{"zh", "天气预报", "weather"},
		{"zh", "删除文件", "delete_file"},
		{"zh", "网页截图", "screenshot"},
		{"zh", "发送邮件给客户", "send_email"},
		{"zh", "查一下股票价格", "stock"},
		{"zh", "驾车路线", "directions"},
		{"ja", "天気予報を調べる", "weather"},
		{"ja", "ファイルを読み込む", "read_file"},
		{"ja", "スクリーンショットを撮る", "screenshot"},
		{"ja", "メールを送信する", "send_email"},
		{"ja", "テキストを翻訳して", "translate"},
		{"ko", "날씨 예보", "weather"},
		{"ko", "파일 삭제", "delete_file"},
		{"ko", "주가 조회", "stock"},
		{"ko", "이메일 보내기", "send_email"},
		{"ko", "캘린더에 일정 추가", "event"},
		{"ru", "прогноз погоды", "weather"},
		{"ru", "удалить файл", "delete_file"},
		{"ru", "отправить письмо", "send_email"},
		{"ru", "перевести текст", "translate"},
		{"ru", "последние новости", "news"},
		{"de", "Wettervorhersage für Berlin", "weather"},
		{"de", "Datei löschen", "delete_file"},
		{"de", "Eintrag loeschen", "delete_file"}, // the umlaut written out
		{"de", "Aktienkurs abrufen", "stock"},
		{"de", "Verzeichnis auflisten", "list_dir"},
		{"es", "pronóstico del tiempo", "weather"},
		{"es", "pronostico para mañana", "weather"}, // written without the accent
		{"es", "borrar el archivo", "delete_file"},
		{"es", "enviar un correo", "send_email"},
		{"es", "crear un pedido y pagar", "order"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || englishTools[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first", tt.lang, tt.query, ids(englishTools, hits), tt.want)
		}
	}
}

// TestEnglishRequestReachesForeignTool: an English request finds a tool
// described only in another language (its name says nothing), among tools
// described in the other languages and English tools of other kinds.
func TestEnglishRequestReachesForeignTool(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "zh_weather", Server: "s1", Tool: "x1", Description: "查询城市的天气预报。"},
		{ID: "zh_screenshot", Server: "s1", Tool: "x2", Description: "截取当前网页的截图。"},
		{ID: "ja_read", Server: "s2", Tool: "x3", Description: "指定したファイルを読み込みます。"},
		{ID: "ja_mail", Server: "s2", Tool: "x4", Description: "メールを送信します。"},
		{ID: "ko_stock", Server: "s3", Tool: "x5", Description: "주식 시세를 조회합니다."},
		{ID: "ko_translate", Server: "s3", Tool: "x6", Description: "텍스트를 번역합니다."},
		{ID: "ru_delete", Server: "s4", Tool: "x7", Description: "Удаляет файл с диска."},
		{ID: "ru_calendar", Server: "s4", Tool: "x8", Description: "Создаёт событие в календаре."},
		{ID: "de_news", Server: "s5", Tool: "x9", Description: "Aktuelle Nachrichten und Schlagzeilen."},
		{ID: "de_order", Server: "s5", Tool: "x10", Description: "Eine Bestellung anlegen und bezahlen."},
		{ID: "es_restaurant", Server: "s6", Tool: "x11", Description: "Busca restaurantes cerca de una dirección."},
		{ID: "es_sql", Server: "s6", Tool: "x12", Description: "Ejecuta una consulta en la base de datos."},
		{ID: "en_repos", Server: "github", Tool: "list_repositories", Description: "List the repositories of a user."},
		{ID: "en_channels", Server: "slack", Tool: "list_channels", Description: "List the channels of a workspace."},
	}
	ix := New(docs)
	tests := []struct{ lang, query, want string }{
		{"zh", "weather forecast", "zh_weather"},
		{"zh", "take a screenshot of the page", "zh_screenshot"},
		{"ja", "read a file", "ja_read"},
		{"ja", "send an email", "ja_mail"},
		{"ko", "stock quote", "ko_stock"},
		{"ko", "translate text", "ko_translate"},
		{"ru", "delete a file", "ru_delete"},
		{"ru", "create a calendar event", "ru_calendar"},
		{"de", "latest news headlines", "de_news"},
		{"de", "place an order", "de_order"},
		{"es", "restaurants nearby", "es_restaurant"},
		{"es", "database query", "es_sql"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || docs[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first", tt.lang, tt.query, ids(docs, hits), tt.want)
		}
	}
}

// TestUnmappedWordsAddNothing: words the bilingual lexicon does not know
// give a request no English words and a description no indexed ones; a
// German- or Spanish-looking word in an English request is not read as
// German or Spanish; and a word inside a longer CJK word the lexicon knows
// (장소 in 저장소) gives nothing of its own.
func TestUnmappedWordsAddNothing(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{ID: "zh", Server: "a", Tool: "x1", Description: "吃饭睡觉"},
		{ID: "ru", Server: "a", Tool: "x2", Description: "Собака лает громко."},
		{ID: "de", Server: "a", Tool: "x3", Description: "Der Hund bellt laut."},
		{ID: "es", Server: "a", Tool: "x4", Description: "El perro ladra fuerte."},
	}
	ix := New(docs)
	own := map[string]bool{}
	for _, d := range docs {
		for _, s := range []string{d.Server, d.Tool, d.Description, firstSentence(d.Description)} {
			token.ForEachToken(s, nil, func(w []byte, _ bool) { own[string(w)] = true })
		}
	}
	for term := range ix.vocab {
		if !own[term] {
			t.Errorf("index holds %q, which no description says", term)
		}
	}

	tests := []struct {
		query string
		not   []string // English words the request must not stand for
		want  []string // and those it must
	}{
		{"собака", []string{"dog"}, nil},
		{"吃饭", nil, nil},
		{"perro ladra", nil, nil},
		// An English request: "Rama" and "nota" are names here.
		{"show the release notes of Rama", []string{"branch"}, nil},
		{"what is the nota field for", []string{"note"}, nil},
		// The same words in a Spanish request are Spanish.
		{"crear una rama", nil, []string{"branch", "create"}},
		// A stem reaches its inflections, the longest stem wins, and a
		// word that runs on far past a stem is another word.
		{"картинку", []string{"map"}, []string{"image"}},
		{"карту", nil, []string{"map"}},
		{"удаленность", []string{"delete"}, nil},
		// A CJK word inside a longer one does not speak for itself.
		{"저장소 목록", []string{"place"}, []string{"repository", "list"}},
		{"ログインする", []string{"log"}, []string{"login"}},
		{"メモリ使用量", []string{"note"}, []string{"memory"}},
		{"数据库", nil, []string{"database"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.want, tt.not)
		if tt.not == nil && tt.want == nil {
			terms := ix.analyse(tt.query)
			own := map[string]bool{}
			token.ForEachToken(tt.query, nil, func(w []byte, _ bool) { own[string(w)] = true })
			for _, term := range terms {
				if !own[term] {
					t.Errorf("analysis of %q = %v: %q is none of its words", tt.query, terms, term)
				}
			}
		}
	}
}

// analyse returns the terms the index searches for q.
func (ix *Index) analyse(q string) []string {
	terms, _ := new(query.Analyser).Analyse(q, ix.vocab, ix.idf)
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t.Text
	}
	return out
}

// TestMarkerlessEnglishIsNotReadAsGermanOrSpanish: an English request
// without any of the English marker words is still English. Its words are
// not inflected into German or Spanish keys (date → daten → data, formula →
// formular → form, sub → sube → upload, client → cliente → customer) nor
// read as German or Spanish at all: it is analysed and ranked exactly as
// the same request with an English marker, which no Latin key reaches.
func TestMarkerlessEnglishIsNotReadAsGermanOrSpanish(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "chart", Server: "charts", Tool: "histogram", Description: "Draw a histogram chart of data."},
		Doc{ID: "form", Server: "browser", Tool: "browser_fill_form", Description: "Fill in a form on the page."},
		Doc{ID: "upload", Server: "storage", Tool: "upload_file", Description: "Upload a file."},
		Doc{ID: "customer", Server: "crm", Tool: "find_customer", Description: "Find a customer record."},
		Doc{ID: "load", Server: "db", Tool: "load_table", Description: "Load rows into a table."},
		Doc{ID: "sheet", Server: "sheets", Tool: "set_cell_formula", Description: "Set a spreadsheet cell formula for a date."},
	)
	ix := New(docs)
	queries := []string{
		"date range", "excel formula", "sub reddit top posts", "client list",
		"lad names", "laden", "client secrets rotate", "calendar date picker",
		"formula bar", "sub folders", "dates between events", "clients by region",
		// ordinary English words that look like German or Spanish inflections
		"note taking app", "rate limit status", "post a tweet", "site map",
		"data table", "tag list", "mode toggle", "lose weight plan",
		"plan trip", "cart total", "base image tags",
	}
	for _, q := range queries {
		got, want := ix.analyse(q), ix.analyse("the "+q)
		if !slices.Equal(got, want) {
			t.Errorf("analysis of %q = %v, want %v (as with an English marker)", q, got, want)
		}
		gh, wh := ids(docs, ix.Search(q, 8)), ids(docs, ix.Search("the "+q, 8))
		if !slices.Equal(gh, wh) {
			t.Errorf("Search(%q) = %v, want %v (as with an English marker)", q, gh, wh)
		}
	}
}

// TestRussianStemKeepsToItsWord: a Russian stem reaches its own word's
// forms, not the common words of another family that begin with its
// letters (удалось "it managed" is no delete, почти "almost" no mail), and
// a stem read inside a longer phrase of stems stands for the phrase
// (виртуальную машину is a virtual machine, no car).
func TestRussianStemKeepsToItsWord(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query     string
		not, want []string
	}{
		{"не удалось подключиться к серверу", []string{"delete"}, nil},
		{"удаленно", []string{"delete"}, nil},
		{"удалите файл", nil, []string{"delete", "file"}},
		{"удаление записи", nil, []string{"delete"}},
		{"создать виртуальную машину", []string{"car", "driving"}, []string{"vm", "virtual"}},
		{"арендовать машину", nil, []string{"car"}},
		{"почти готово", []string{"email", "mail"}, nil},
		{"проверить почту", nil, []string{"email"}},
		{"поясни этот код", []string{"timezone", "zone"}, nil},
		{"часовой пояс москвы", nil, []string{"timezone"}},
		{"загрузить логотип", []string{"log"}, nil},
		{"показать логи сервера", nil, []string{"log"}},
		{"стать лучше", []string{"article", "post"}, nil},
		{"найти статью", nil, []string{"article"}},
		{"датчик температуры", []string{"date"}, nil},
		{"дата встречи", nil, []string{"date"}},
		{"переместить курсор", []string{"rate", "exchange"}, nil},
		{"курс доллара", nil, []string{"rate"}},
	}
	for _, tt := range tests {
		// A description says the same as a request.
		concepts := indexedConcepts(tt.query)
		for _, w := range tt.not {
			if concepts[w] > 0 {
				t.Errorf("description %q: concepts %v hold %q", tt.query, concepts, w)
			}
		}
		for _, w := range tt.want {
			if concepts[w] == 0 {
				t.Errorf("description %q: concepts %v lack %q", tt.query, concepts, w)
			}
		}
		checkTerms(t, ix, tt.query, tt.want, tt.not)
	}
}

// TestFoldedKeyIsNoOtherWord: a German or Spanish key is met without its
// accents, except where its plain spelling is another word: andere
// (other) is no ändere (change), Wahrung no Währung.
func TestFoldedKeyIsNoOtherWord(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "edit_file", Server: "fs", Tool: "edit_file", Description: "Edit or change a file."},
		Doc{ID: "currency", Server: "fx", Tool: "convert_currency", Description: "Convert an amount between currencies."},
	)
	ix := New(docs)
	tests := []struct {
		query     string
		not, want []string
		first     string
	}{
		{"andere Dateien löschen", []string{"change", "edit"}, []string{"delete"}, "delete_file"},
		{"alle anderen Dateien löschen", []string{"change", "edit"}, []string{"delete"}, "delete_file"},
		{"ändere die Datei", nil, []string{"edit"}, "edit_file"},
		{"aendere die Datei", nil, []string{"edit"}, "edit_file"},
		{"Wahrung der Rechte", []string{"currency"}, nil, ""},
		{"Währung umrechnen", nil, []string{"currency"}, "currency"},
		{"Datei loschen", nil, []string{"delete"}, "delete_file"},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.want, tt.not)
		if tt.first != "" {
			if hits := ix.Search(tt.query, 3); len(hits) == 0 || docs[hits[0].Doc].ID != tt.first {
				t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(docs, hits), tt.first)
			}
		}
	}
}

// TestCJKWordsCoverTheRunOnce: in a run of CJK text, the words the
// bilingual lexicon knows count as a cover of the run, longest first and
// none overlapping another: a word across two (行情 in 运行情况) or inside
// a longer one (ログ in プログラム, 客户 in 客户端) says nothing, in a request
// as in a description; and a description's first sentence gives its
// English words once.
func TestCJKWordsCoverTheRunOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text      string
		not, want []string
	}{
		{"运行情况", []string{"quote", "market"}, []string{"run"}},
		{"查看任务执行情况", []string{"quote", "market"}, []string{"execute"}},
		{"股票行情", nil, []string{"quote"}},
		{"地図を表示する", []string{"diagram"}, []string{"map"}},
		{"意図を説明する", []string{"diagram"}, nil},
		{"プログラムを実行する", []string{"log"}, []string{"program"}},
		{"カタログを検索", []string{"log"}, []string{"catalog"}},
		{"ダイアログを閉じる", []string{"log"}, []string{"dialog"}},
		{"프로그램 실행", []string{"log"}, []string{"program"}},
		{"카탈로그", []string{"log"}, []string{"catalog"}},
		{"로그인", []string{"log"}, []string{"login"}},
		{"로그 보기", nil, []string{"log"}},
		{"客户端配置", []string{"customer"}, []string{"client"}},
		{"客户名单", nil, []string{"customer"}},
		{"저장소 목록을 가져옵니다", []string{"save", "place"}, []string{"repository", "list"}},
	}
	ix := New(englishTools)
	for _, tt := range tests {
		terms := ix.analyse(tt.text)
		concepts := indexedConcepts(tt.text)
		for side, got := range map[string]map[string]int{"request": counts(terms), "description": concepts} {
			for _, w := range tt.not {
				if got[w] > 0 {
					t.Errorf("%s %q: %v holds %q", side, tt.text, got, w)
				}
			}
			for _, w := range tt.want {
				if got[w] == 0 {
					t.Errorf("%s %q: %v lacks %q", side, tt.text, got, w)
				}
			}
		}
		for _, w := range tt.want {
			if concepts[w] != 1 {
				t.Errorf("description %q: %q indexed %d times in the concept field, want once", tt.text, w, concepts[w])
			}
		}
	}
}

func counts(terms []string) map[string]int {
	m := map[string]int{}
	for _, t := range terms {
		m[t]++
	}
	return m
}

// indexedConcepts returns how often each English word is indexed in the
// concept field of one tool described by desc.
func indexedConcepts(desc string) map[string]int {
	sh := newShard(1)
	fl := make([][numFields]float32, 1)
	var meta docMeta
	sh.doc(0, 0, &Doc{ID: "x", Server: "s", Tool: "x", Description: desc}, &meta, nil, fl)
	m := map[string]int{}
	for _, e := range sh.entries {
		if n := e.tf[fConcept]; n > 0 {
			m[sh.terms[e.term]] += int(n)
		}
	}
	return m
}

// TestBilingualSenses: a word of the bilingual lexicon stands for its
// ordinary senses, each of them, and not for a sense one request once
// needed (未来 is the future, not a forecast; 얼마나 asks how much or how
// long, not a price).
func TestBilingualSenses(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query     string
		not, want []string
	}{
		{"reservar una cita con el médico", nil, []string{"appointment"}},
		{"añadir una cita al artículo", nil, []string{"citation"}},
		{"ejecutar una acción", []string{"stock"}, []string{"action"}},
		{"crear una cuenta", nil, []string{"account"}},
		{"la cuenta de palabras", nil, []string{"count"}},
		{"仓库列表", nil, []string{"repository", "warehouse"}},
		{"얼마나 걸려요", []string{"price"}, nil},
		{"얼마예요", nil, []string{"price"}},
		{"未来の予定", []string{"forecast"}, []string{"future"}},
		{"未対応の問い合わせ", []string{"open"}, nil},
		{"一斉に始める", []string{"broadcast"}, nil},
		{"メッセージを一斉送信", nil, []string{"broadcast"}},
		{"写真を撮る", []string{"take"}, []string{"photo"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.want, tt.not)
	}
}
