package search

import (
	"slices"
	"testing"
)

// checkTerms reports where the analysis of each query lacks a term of has
// or holds one of not.
func checkTerms(t *testing.T, ix *Index, query string, has, not []string) {
	t.Helper()
	terms := ix.analyse(query)
	for _, w := range has {
		if !slices.Contains(terms, w) {
			t.Errorf("analysis of %q = %v: lacks %q", query, terms, w)
		}
	}
	for _, w := range not {
		if slices.Contains(terms, w) {
			t.Errorf("analysis of %q = %v: has %q", query, terms, w)
		}
	}
}

// TestForeignFunctionWordsAreDropped: in a request read as German, Spanish,
// French, Portuguese or Italian, the language's articles, prepositions and
// light verbs are no search terms, as English stop words are not ("es" in
// "qué hora es" is no ES module, "haz" in "haz una captura" makes nothing);
// in an English request the same letters stay.
func TestForeignFunctionWordsAreDropped(t *testing.T) {
	t.Parallel()
	ix := New(append(slices.Clone(englishTools),
		Doc{ID: "lint", Server: "eslint", Tool: "lint_files", Description: "Lint files with ESLint (es modules)."}))
	tests := []struct {
		query    string
		has, not []string
	}{
		{"¿qué hora es en Tokio?", []string{"time"}, []string{"es", "en", "qué"}},
		{"Wie spät ist es in Tokio", nil, []string{"wie", "ist", "es"}},
		{"traduire ce texte en espagnol", []string{"translate"}, []string{"ce", "en"}},
		{"listar arquivos da pasta", []string{"list", "folder"}, []string{"da"}},
		{"haz una captura de pantalla", []string{"screenshot"}, []string{"haz", "una"}},
		{"leggi il file della cartella", []string{"read", "folder"}, []string{"il", "della"}},
		{"es modules lint", []string{"es"}, nil},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}

// TestVerbFormsReachTheirVerb: the verb forms requests use beyond the
// infinitive and the familiar imperative reach the lexicon's verb by rule:
// Spanish usted imperatives and subjunctives with their spelling changes,
// preterites, participles and gerunds, imperatives carrying a pronoun;
// German present tense and participles; French and Italian imperatives.
func TestVerbFormsReachTheirVerb(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct{ lang, query, want string }{
		{"es", "busqué vuelos a Lima", "search"},
		{"es", "envíe el correo al cliente", "send"},
		{"es", "lea el archivo de registro", "read"},
		{"es", "escriba un archivo nuevo", "write"},
		{"es", "guárdalo en la carpeta", "save"},
		{"es", "buscó las noticias de hoy", "search"},
		{"es", "archivo subido al servidor", "upload"},
		{"es", "descargando el archivo", "download"},
		{"de", "er sucht die Datei", "search"},
		{"de", "die Datei wurde gelöscht", "delete"},
		{"fr", "envoyez le fichier", "send"},
		{"it", "leggi il file della cartella", "read"},
		// Irregular imperatives are listed, and take the rules too.
		{"de", "lies die Datei", "read"},
		{"es", "tráeme el archivo", "get"},
		{"ru", "напиши письмо клиенту", "write"},
		{"ru", "забронируй отель", "book"},
	}
	for _, tt := range tests {
		if terms := ix.analyse(tt.query); !slices.Contains(terms, tt.want) {
			t.Errorf("[%s] analysis of %q = %v: lacks %q", tt.lang, tt.query, terms, tt.want)
		}
	}
}

// TestGermanCompoundIsReadAsItsParts: a German compound the lexicon does
// not list is read as its parts where they are words it or the index
// knows (Luftqualität: air quality; Bitcoinkurs: bitcoin's price), or,
// before a long known head, as the head (an Architekturdiagramm is a
// diagram); a word the lexicon lists whole is not split.
func TestGermanCompoundIsReadAsItsParts(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "air", Server: "meteo", Tool: "air_quality", Description: "Air quality forecast for a place."},
		Doc{ID: "diagram", Server: "drawio", Tool: "create_diagram", Description: "Create a new diagram."})
	ix := New(docs)
	tests := []struct {
		query    string
		has, not []string
	}{
		{"Luftqualität in München", []string{"air", "quality"}, nil},
		{"die Datenbanktabelle anzeigen", []string{"database", "table"}, nil},
		{"ein Architekturdiagramm zeichnen", []string{"diagram"}, nil},
		{"die Wettervorhersage für Berlin", []string{"weather", "forecast"}, []string{"quality"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
	if hits := ix.Search("Luftqualität in München", 3); len(hits) == 0 || docs[hits[0].Doc].ID != "air" {
		t.Errorf("Search(Luftqualität in München) = %v, want air first", ids(docs, hits))
	}
}

// TestRussianVerbIsReadWithoutItsAspectPrefix: a Russian perfective whose
// own letters begin no stem is read without its prefix (закоммитить is
// коммитить, сгенерировать генерировать), and a prefixed verb of another
// family keeps to its own stem or none (отключить is to disable, not a
// key; закрепить is to pin, not to close).
func TestRussianVerbIsReadWithoutItsAspectPrefix(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query    string
		has, not []string
	}{
		{"закоммитить изменения", []string{"commit"}, nil},
		{"сгенерировать отчет", []string{"generate"}, nil},
		{"отредактировать файл", []string{"edit"}, nil},
		{"отключить уведомления", []string{"disable"}, []string{"key"}},
		{"закрепить сообщение", nil, []string{"close"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}

// TestConverterNameSplitsAtTwo: a converter's name written with "2" for
// "to" (pdf2text, html2md) is searched as its two words; a name the index
// knows whole, or one whose digit means something else (k8s, ec2), is not.
func TestConverterNameSplitsAtTwo(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "pdf", Server: "pdf", Tool: "read_pdf", Description: "Extract the text of a PDF file."},
		Doc{ID: "img2img", Server: "art", Tool: "img2img", Description: "Transform an image with a prompt."})
	ix := New(docs)
	checkTerms(t, ix, "pdf2text", []string{"pdf", "text"}, []string{"pdf2text"})
	checkTerms(t, ix, "img2img", []string{"img2img"}, nil)
	checkTerms(t, ix, "k8s pods", []string{"k8s"}, nil)
	if hits := ix.Search("pdf2text", 3); len(hits) == 0 || docs[hits[0].Doc].ID != "pdf" {
		t.Errorf("Search(pdf2text) = %v, want pdf first", ids(docs, hits))
	}
}

// TestEverydayWordsOfCoins: a coin's price is its ticker; crypto alone
// (a crypto library) is no price.
func TestEverydayWordsOfCoins(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "ticker", Server: "ccxt", Tool: "get_ticker", Description: "Get current ticker information for a trading pair."})
	ix := New(docs)
	checkTerms(t, ix, "bitcoin price", []string{"ticker", "crypto"}, nil)
	checkTerms(t, ix, "crypto library for hashing", nil, []string{"ticker"})
}

// TestEnglishRequestsStayEnglish: English requests whose words a Latin
// language or Russian spells too, or that look like a converter's name,
// keep their English reading: a marker English spells ("os", "con",
// "pour") or a lexicon word English spells ("pasta", "costa") is no
// evidence alone and is not dropped; an English word is neither inflected
// into a foreign one nor read as a compound; a Russian word reaches a stem
// without its prefix only where that is a verb's; a name with a "2" in it
// stays one word; and English phrases that hold a news or picture word
// are not news or pictures to generate, while top stories stay news.
func TestEnglishRequestsStayEnglish(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct {
		query    string
		has, not []string
	}{
		// Markers English spells.
		{"os environment variables", []string{"os", "environment"}, nil},
		{"du disk usage", []string{"du"}, nil},
		{"nas backup status", []string{"nas"}, nil},
		{"mit license check", []string{"mit"}, nil},
		{"des encryption key", []string{"des"}, nil},
		{"con artist", []string{"con"}, nil},
		{"pour water", []string{"pour"}, nil},
		{"el capitan macos", []string{"el"}, nil},
		{"les paul guitar price", []string{"les"}, nil},
		{"São Paulo weather", []string{"são"}, nil},
		// Lexicon keys English spells.
		{"pasta recipe", nil, []string{"folder"}},
		{"lager beer", nil, []string{"inventory"}},
		{"rota schedule", nil, []string{"route"}},
		{"regen docs", nil, []string{"rain"}},
		{"costa rica weather", nil, []string{"cost"}},
		{"nova scotia weather", nil, []string{"create"}},
		{"gib", nil, []string{"get", "show"}},
		// English words are not inflected nor split into foreign ones.
		{"café velocity", nil, []string{"city", "bicycle"}},
		{"Pokémon cart total", nil, []string{"card"}},
		{"Zürich rotate keys", nil, []string{"route"}},
		{"os model info", nil, []string{"template"}},
		// Rules keep to their language.
		{"alle Geräte anzeigen", []string{"show"}, []string{"generate"}},
		{"Gespräch mit dem Kunden planen", []string{"customer"}, []string{"language"}},
		{"die Datei wurde gespeichert", []string{"save"}, []string{"storage"}},
		{"mostra i file della cartella", []string{"folder", "show"}, nil},
		{"elimina i messaggi vecchi", []string{"delete"}, nil},
		// Russian prefixes and verb endings reach verbs only; a word
		// stands for its own English words only.
		{"выключить уведомления", []string{"notification"}, []string{"key"}},
		{"подождите", nil, []string{"rain"}},
		{"исключить папку из поиска", nil, []string{"key"}},
		{"переключить вкладку", nil, []string{"key"}},
		{"голосовать", nil, []string{"voice"}},
		{"скопировать ссылку", []string{"copy"}, []string{"clone", "fork"}},
		{"загрузить файл", []string{"upload"}, []string{"attachment"}},
		// Names with a "2".
		{"describe ec2Instance", nil, []string{"ec"}},
		{"http2Server settings", nil, []string{"http"}},
		{"oauth2Client config", nil, []string{"oauth"}},
		{"gpt2Tokenizer", nil, []string{"gpt"}},
		{"word2vec", []string{"word2vec"}, []string{"vec"}},
		// English phrases of news and pictures.
		{"list breaking changes", nil, []string{"news"}},
		{"top story points in jira", nil, []string{"news"}},
		{"top stories today", []string{"news"}, nil},
		{"create a disk image of the server", nil, []string{"generate"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, tt.has, tt.not)
	}
}

// TestFrenchPortugueseItalianRequestsReachTools: requests in the Latin
// languages beside German and Spanish reach the English tools.
func TestFrenchPortugueseItalianRequestsReachTools(t *testing.T) {
	t.Parallel()
	ix := New(englishTools)
	tests := []struct{ lang, query, want string }{
		{"fr", "traduire ce texte en espagnol", "translate"},
		{"fr", "prévisions météo à Paris demain", "weather"},
		{"fr", "envoyer un courriel à un client", "send_email"},
		{"pt", "previsão do tempo em Lisboa amanhã", "weather"},
		{"pt", "listar arquivos da pasta", "list_dir"},
		{"pt", "traduzir para inglês", "translate"},
		{"it", "leggi il file della cartella", "read_file"},
		{"it", "ultime notizie di oggi", "news"},
	}
	for _, tt := range tests {
		if hits := ix.Search(tt.query, 3); len(hits) == 0 || englishTools[hits[0].Doc].ID != tt.want {
			t.Errorf("[%s] Search(%q) = %v, want %s first", tt.lang, tt.query, ids(englishTools, hits), tt.want)
		}
	}
}

// TestRussianCoinIsItsTicker: биткоин is bitcoin, and a bitcoin's rate is
// its ticker, as "bitcoin price" finds it.
func TestRussianCoinIsItsTicker(t *testing.T) {
	t.Parallel()
	docs := append(slices.Clone(englishTools),
		Doc{ID: "ticker", Server: "ccxt", Tool: "get_ticker", Description: "Get current ticker information for a trading pair."},
		Doc{ID: "balance", Server: "ccxt", Tool: "account_balance", Description: "Get the crypto balance of an exchange account."})
	ix := New(docs)
	checkTerms(t, ix, "курс биткоина", []string{"bitcoin", "ticker"}, nil)
	if hits := ids(docs, ix.Search("курс биткоина", 2)); !slices.Contains(hits, "ticker") {
		t.Errorf("Search(курс биткоина) = %v, want ticker in the top 2", hits)
	}
}
