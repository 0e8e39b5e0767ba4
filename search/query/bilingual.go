package query

import (
	"strings"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// The bilingual lexicon (lexicon.Bilingual) read for both sides of a search:
// its keys join the query's intents (a request's foreign words stand for the
// tools' English words), and Concepts gives the index the same table, so that
// a description's foreign words are indexed with their English words too.

// IsCJKPair reports whether the analysed word w is a pair of CJK characters,
// as the tokeniser cuts CJK runs.
func IsCJKPair(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	return size < len(w) && token.IsCJK(r)
}

// AppendKey appends to dst the lexicon key of words: the text of each, as
// text gives it, joined by one space (the form of the bilingual lexicon's
// and the intents' keys).
func AppendKey[E any](dst []byte, words []E, text func(E) string) []byte {
	for j, w := range words {
		if j > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, text(w)...)
	}
	return dst
}

// maxStemTail is how many letters a word may carry past a bilingual stem
// ("удал*" reaches удалить, удалите, удаление): about the longest of the
// common endings, and short enough that a stem does not reach words built on
// it that mean something else.
const maxStemTail = 4

// Concepts is the bilingual lexicon in analysed form, as the index reads it.
type Concepts struct {
	exact    map[string][]string // word, or words joined by one space → English words
	stems    map[string][]string // stem → English words
	phrases  map[string][]string // stems joined by one space, each marked stemMark → English words
	notStem  map[string][]string // stem → beginnings of words that are not its word (lexicon.BilingualStemExceptions)
	maxWords int                 // the longest exact key, in words
}

// latinMark marks, in the query's intents, a bilingual word in Latin script
// (German, Spanish), and stemMark a stem: such keys are reached only through
// conceptKey, never by a word as it stands.
const (
	latinMark = "="
	stemMark  = "*"
)

// isLatinKey reports whether the analysed key k is written in Latin script,
// where a word of another language can look like an English one.
func isLatinKey(k string) bool {
	r, _ := utf8.DecodeRuneInString(k)
	return r < 0x250 // ASCII, Latin-1 and Latin Extended
}

// BilingualConcepts returns the bilingual table the index reads, built once
// with the query tables.
func BilingualConcepts() *Concepts { return lexiconTables().concepts }

// MaxWords is the longest key, in analysed words (a CJK key of n characters
// is n-1 character pairs).
func (c *Concepts) MaxWords() int { return c.maxWords }

// Phrase returns the English words of key, analysed words joined by one
// space (folded, see foldLatin), or nil.
func (c *Concepts) Phrase(key []byte) []string { return c.exact[string(key)] }

// Word returns the English words of the analysed word w: its own entry, or
// that of the longest stem it begins with, or nil.
func (c *Concepts) Word(w string) []string {
	switch k, stem := c.lookup(w, true, false); {
	case k == "":
		return nil
	case stem:
		return c.stems[k]
	default:
		return c.exact[k]
	}
}

// lookup returns the key the analysed word w reaches in the lexicon: when
// exact, its own exact key, or that of its folded form (foldLatin), or, when
// inflect too, that of one of its inflections (Concepts.inflected); else
// the longest stem its folded form begins with (stem set); or "".
func (c *Concepts) lookup(w string, exact, inflect bool) (key string, stem bool) {
	f := foldLatin(w)
	if exact {
		if c.exact[w] != nil {
			return w, false
		}
		if c.exact[f] != nil {
			return f, false
		}
		if inflect {
			if k := c.inflected(f); k != "" {
				return k, false
			}
		}
	}
	if k := c.stemKey(f); k != "" {
		return k, true
	}
	return "", false
}

// StemKey returns the key of the stem the analysed word w begins with, as
// a phrase of stems writes it ("виртуальн*" for виртуальной), or "".
func (c *Concepts) StemKey(w string) string {
	if k := c.stemKey(foldLatin(w)); k != "" {
		return k + stemMark
	}
	return ""
}

// StemPhrase returns the English words of the phrase of stems key (StemKeys
// joined by one space, "виртуальн* машин*"), or nil.
func (c *Concepts) StemPhrase(key []byte) []string { return c.phrases[string(key)] }

// stemKey returns the longest stem w (folded) begins with, leaving at most
// maxStemTail letters; else that of w without a Russian verb prefix
// (aspectPrefixes); or "".
func (c *Concepts) stemKey(w string) string {
	if k := c.stemOf(w); k != "" {
		return k
	}
	r, _ := utf8.DecodeRuneInString(w)
	if r < 0x400 || r > 0x4ff {
		return ""
	}
	for _, p := range aspectPrefixes {
		if rest, ok := strings.CutPrefix(w, p); ok && utf8.RuneCountInString(rest) >= minPrefixedRest {
			if k := c.stemOf(rest); k != "" {
				return k
			}
		}
	}
	return ""
}

// aspectPrefixes are the prefixes Russian puts on a verb to make its
// perfective (закоммитить, сгенерировать, отредактировать against
// коммитить, генерировать, редактировать), longest first: a word whose own
// letters begin no stem is read without one.
var aspectPrefixes = []string{"пере", "при", "про", "раз", "рас", "под", "над", "от", "вы", "за", "на", "по", "об", "до", "из", "ис", "с", "у", "о"}

// minPrefixedRest is the fewest letters a word read without its prefix
// keeps: fewer meet unrelated stems by chance.
const minPrefixedRest = 5

// verbEndings are the Russian infinitive and imperfective endings longer
// than maxStemTail (генерировать, редактировать, показывать): a word that
// is a stem and one of them is the stem's word.
var verbEndings = []string{"овать", "ывать", "ивать", "евать"}

// stemOf returns the longest stem w begins with, leaving at most
// maxStemTail letters or one of the verbEndings, or "".
func (c *Concepts) stemOf(w string) string {
	if len(c.stems) == 0 || len(w) < 2 {
		return ""
	}
	for _, e := range verbEndings {
		if base, ok := strings.CutSuffix(w, e); ok {
			if _, known := c.stems[base]; known && !c.otherWord(base, w) {
				return base
			}
		}
	}
	end, tail := len(w), 0
	for end > 0 && tail <= maxStemTail {
		if _, ok := c.stems[w[:end]]; ok {
			if c.otherWord(w[:end], w) {
				return ""
			}
			return w[:end]
		}
		_, size := utf8.DecodeLastRuneInString(w[:end])
		end -= size
		tail++
	}
	return ""
}

// otherWord reports whether w, which begins with stem, is another word
// than the stem's: it begins with one of the stem's exceptions ("удалось"
// for удал), or is the exception's one whole word ("=стать").
func (c *Concepts) otherWord(stem, w string) bool {
	for _, x := range c.notStem[stem] {
		if whole, ok := strings.CutPrefix(x, "="); ok {
			if w == whole {
				return true
			}
		} else if strings.HasPrefix(w, x) {
			return true
		}
	}
	return false
}

// inflections are the endings German, Spanish and their neighbours' words
// of tool requests take and lose against the lexicon's form. Each is tried
// as a suffix to cut and one to put in its place, in this order; the first
// that reaches a key wins.
var inflections = []struct{ cut, put string }{
	// Plurals and infinitives (Karten, Dateien, zeigen against Karte,
	// Datei, zeig), imperatives against infinitives (lösche, erstelle
	// against löschen, erstellen; busca, escribe against buscar, escribir).
	{"en", ""}, {"n", ""}, {"e", ""}, {"er", ""}, {"es", ""},
	{"", "n"}, {"", "en"}, {"", "e"},
	{"", "r"}, {"e", "ir"}, {"e", "er"}, {"a", "ar"},
	// German present tense against the infinitive or the stem (sucht,
	// zeigt, löscht against suchen, zeig, löschen).
	{"t", "en"}, {"st", "en"}, {"t", ""}, {"st", ""},
	// Spanish usted imperatives and subjunctives, with their spelling
	// changes (busque, pague, traduzca, envíe, lea, escriba), first- and
	// third-person preterites (busqué, leí, buscó, escribió), gerunds and
	// participles (buscando, leyendo, guardado, subido).
	{"que", "car"}, {"gue", "gar"}, {"zca", "cir"}, {"zca", "cer"}, {"ce", "zar"},
	{"e", "ar"}, {"en", "ar"}, {"a", "er"}, {"a", "ir"}, {"an", "er"}, {"an", "ir"},
	{"i", "er"}, {"i", "ir"}, {"o", "ar"}, {"io", "er"}, {"io", "ir"},
	{"ando", "ar"}, {"iendo", "er"}, {"iendo", "ir"}, {"yendo", "er"},
	{"ado", "ar"}, {"ada", "ar"}, {"ido", "er"}, {"ido", "ir"},
	// French and Italian imperatives against infinitives (envoyez,
	// cherchez; cerca, leggi, apri against cercare, leggere, aprire).
	{"ez", "er"}, {"a", "are"}, {"e", "are"}, {"i", "ere"}, {"i", "ire"},
}

// enclitics are the pronouns a Spanish (and Italian) imperative carries
// joined to its end (guárdalo, envíamelo, muéstrales; mandami), longest
// first; the verb is read without them. Plural forms lose their s as every
// query word does (los → lo).
var enclitics = []string{"melo", "mela", "selo", "sela", "telo", "tela", "nos", "me", "te", "lo", "la", "le", "se", "mi", "ci", "gli"}

// participlePrefix is the German past participle's prefix (gelöscht,
// gespeichert): read without it, the rest is the present stem.
const participlePrefix = "ge"

// knownWordPairExponent sets how much each character pair of a known CJK
// word of n pairs weighs: n^-knownWordPairExponent of a word, so the word
// as a whole weighs n^(1-knownWordPairExponent) words (weighKnownWords).
// Below one, a longer word still says a little more than a shorter one.
// Tuned on the tuning halves of the labelled sets.
const knownWordPairExponent = 0.7

// minInflectedKey is the shortest lexicon word an inflection may reach:
// shorter words meet too many unrelated ones by a letter or two.
const minInflectedKey = 4

// inflected returns the exact Latin-script key the folded word f reaches
// by one of the inflections, the first that does; else by one after
// dropping an enclitic pronoun or the participle prefix; or "".
func (c *Concepts) inflected(f string) string {
	if k := c.inflectedAs(f); k != "" {
		return k
	}
	if k := c.undoStemVowel(f); k != "" {
		return k
	}
	for _, e := range enclitics {
		if base, ok := strings.CutSuffix(f, e); ok && len(base) >= minInflectedKey {
			if c.exact[base] != nil {
				return base
			}
			if k := c.inflectedAs(base); k != "" {
				return k
			}
			if k := c.undoStemVowel(base); k != "" {
				return k
			}
		}
	}
	if rest, ok := strings.CutPrefix(f, participlePrefix); ok && len(rest) > minInflectedKey {
		return c.inflectedAs(rest)
	}
	return ""
}

// stemVowels are the diphthongs a Spanish stem-changing verb takes where
// its stem is stressed (vuelve, cierra, encuentra, prueba against volver,
// cerrar, encontrar, probar), each with the vowel of the infinitive.
var stemVowels = []struct{ cut, put string }{{"ue", "o"}, {"ie", "e"}}

// undoStemVowel returns the exact key the folded word f reaches by one of
// the inflections once the first diphthong of stemVowels in it is put back
// to its vowel, or "".
func (c *Concepts) undoStemVowel(f string) string {
	for _, v := range stemVowels {
		if i := strings.Index(f, v.cut); i > 0 {
			if k := c.inflectedAs(f[:i] + v.put + f[i+len(v.cut):]); k != "" {
				return k
			}
		}
	}
	return ""
}

// inflectedAs returns the exact key f reaches by one of the inflections,
// or "".
func (c *Concepts) inflectedAs(f string) string {
	for _, in := range inflections {
		base, ok := strings.CutSuffix(f, in.cut)
		if !ok {
			continue
		}
		k := base + in.put
		if len(k) >= minInflectedKey && k != f && c.exact[k] != nil {
			return k
		}
	}
	return ""
}

// buildConcepts reads the bilingual lexicon into analysed form: each key's
// words as queries and documents split them (CJK as character pairs), plural
// folded, accents folded. A stem stays one word and keeps its "*" in intents,
// where no analysed word can collide with it.
func buildConcepts() *Concepts {
	c := &Concepts{exact: map[string][]string{}, stems: map[string][]string{}, phrases: map[string][]string{}, notStem: map[string][]string{}}
	for k, not := range lexicon.BilingualStemExceptions() {
		var stem string
		token.ForEachWord(strings.TrimSuffix(k, "*"), nil, func(w []byte, whole bool) {
			if !whole {
				stem = string(w)
			}
		})
		for _, x := range not {
			// Written as the tokeniser writes words (ё as е).
			rest, whole := strings.CutPrefix(x, "=")
			prefix := ""
			if whole {
				prefix = "="
			}
			token.ForEachWord(rest, nil, func(w []byte, part bool) {
				if !part {
					c.notStem[stem] = append(c.notStem[stem], prefix+string(w))
				}
			})
		}
	}
	homographs := map[string]bool{}
	for _, w := range lexicon.FoldedHomographs() {
		homographs[w] = true
	}
	for k, to := range lexicon.Bilingual() {
		stem := strings.HasSuffix(k, "*")
		var ws, written []string
		token.ForEachWord(strings.ReplaceAll(k, "*", ""), nil, func(w []byte, whole bool) {
			if !whole {
				written = append(written, token.Singular(string(w)))
				ws = append(ws, foldLatin(written[len(written)-1]))
			}
		})
		switch {
		case len(ws) == 0:
			continue
		case stem && len(ws) == 1:
			c.stems[ws[0]] = union(c.stems[ws[0]], to)
		case stem:
			// A phrase of stems ("виртуальн* машин*"), as the query
			// reads its words' lemmas.
			key := strings.Join(ws, stemMark+" ") + stemMark
			c.phrases[key] = union(c.phrases[key], to)
		case !stem:
			key := strings.Join(ws, " ")
			if as := strings.Join(written, " "); as != key {
				// Met as written; folded only where the plain spelling
				// is no other word.
				c.exact[as] = union(c.exact[as], to)
				if homographs[key] {
					key = as
				}
			}
			c.exact[key] = union(c.exact[key], to)
			c.maxWords = max(c.maxWords, len(ws))
			if alt := umlautSpelling.Replace(k); alt != k {
				// German written without umlauts: "loeschen".
				c.exact[alt] = union(c.exact[alt], to)
			}
		}
	}
	return c
}

// union returns to with the words of add it lacks appended, each singular.
func union(to, add []string) []string {
	for _, w := range add {
		w = token.Singular(w)
		found := false
		for _, t := range to {
			found = found || t == w
		}
		if !found {
			to = append(to, w)
		}
	}
	return to
}

// conceptKey returns the intent key an original query word reaches through
// the bilingual lexicon when its own form has none: a word in Latin script
// (accents folded, "löschen" → loschen) marked latinMark, when latin allows
// it, or the stem the word begins with, marked stemMark; or "". inflect
// allows a Latin word to reach a key by an inflection (Concepts.inflected).
func (tb *queryTables) conceptKey(w string, latin, inflect bool) string {
	latin = latin && isLatinKey(foldLatin(w))
	switch k, stem := tb.concepts.lookup(w, latin, inflect); {
	case k == "", stem && latin && !inflect:
		// A Latin word reaches a stem only where it may be inflected.
		return ""
	case stem:
		return k + stemMark
	default:
		return latinMark + k
	}
}

// englishMarkers are words only an English sentence uses. A request holding
// one is English, and a word in it that looks German or Spanish ("Rama",
// "nota") is a name or a borrowed word, not the request's language.
var englishMarkers = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "for": true, "with": true,
	"my": true, "is": true, "are": true, "this": true, "that": true, "what": true,
	"how": true, "from": true, "please": true, "you": true, "your": true,
	"it": true, "i": true, "can": true, "which": true, "our": true, "we": true,
}

// foreignMarkers are words German and Spanish sentences use and English
// ones do not (articles, prepositions, pronouns): one is evidence that a
// request is written in one of them. Words English also spells ("die",
// "was", "den", "in", "me") are left out.
var foreignMarkers = map[string]bool{
	// German.
	"der": true, "das": true, "dem": true, "des": true, "ein": true, "eine": true,
	"einen": true, "einem": true, "einer": true, "und": true, "oder": true,
	"mit": true, "von": true, "fur": true, "für": true, "auf": true, "aus": true,
	"nach": true, "zum": true, "zur": true, "ist": true, "sind": true,
	"nicht": true, "alle": true, "meine": true, "meinen": true, "mein": true,
	"bitte": true, "wie": true, "welche": true, "ich": true, "mir": true, "mich": true,
	"uns": true, "unsere": true, "heute": true, "morgen": true,
	// Spanish.
	"el": true, "los": true, "las": true, "del": true, "una": true, "unos": true,
	"unas": true, "para": true, "por": true, "con": true, "mi": true, "mis": true,
	"que": true, "qué": true, "como": true, "cómo": true, "esta": true, "este": true,
	"estos": true, "hoy": true, "todos": true, "todas": true, "sus": true,
	"nuestro": true, "nuestra": true, "cual": true, "cuál": true, "dónde": true,
	"donde": true, "cuando": true, "cuándo": true, "ayer": true,
	// French.
	"le": true, "les": true, "une": true, "du": true, "au": true, "aux": true,
	"pour": true, "avec": true, "sur": true, "dans": true, "ce": true, "cette": true,
	"ces": true, "mon": true, "mes": true, "sont": true, "quel": true, "quelle": true,
	"aujourd": true, "demain": true,
	// Portuguese.
	"os": true, "um": true, "uma": true, "dos": true, "em": true,
	"na": true, "nas": true, "nos": true, "meu": true, "minha": true, "isso": true,
	"hoje": true, "amanhã": true, "amanha": true,
	// Italian.
	"il": true, "gli": true, "della": true, "dei": true, "delle": true, "di": true,
	"nel": true, "nella": true, "mio": true, "mia": true, "questo": true, "questa": true,
	"oggi": true, "domani": true,
}

// functionWords are the articles, prepositions, conjunctions and pronouns
// of German, Spanish, French, Portuguese and Italian, some of which English
// spells too ("die", "es", "de", "a"). In a request read as one of those
// languages (readsLatin) they are dropped as English stop words are: "es"
// in "qué hora es" is no ES module, "en" no English.
var functionWords = map[string]bool{
	// German.
	"der": true, "die": true, "das": true, "dem": true, "den": true, "des": true,
	"ein": true, "eine": true, "einen": true, "einem": true, "einer": true,
	"und": true, "oder": true, "mit": true, "von": true, "vom": true, "fur": true,
	"für": true, "auf": true, "aus": true, "nach": true, "zum": true, "zur": true,
	"zu": true, "im": true, "ins": true, "am": true, "bei": true, "ist": true,
	"sind": true, "es": true, "wie": true, "was": true, "wo": true, "ich": true,
	"mir": true, "mich": true, "mein": true, "meine": true, "meinen": true,
	"meiner": true, "uns": true, "unsere": true, "bitte": true, "nicht": true,
	"dieser": true, "diese": true, "diesen": true, "dieses": true, "alle": true,
	"wird": true, "werden": true, "kann": true, "soll": true, "muss": true,
	"habe": true, "hat": true, "haben": true, "gibt": true,
	// Spanish.
	"el": true, "la": true, "lo": true, "los": true, "las": true, "un": true,
	"una": true, "unos": true, "unas": true, "del": true, "al": true, "de": true,
	"en": true, "y": true, "o": true, "para": true, "por": true, "con": true,
	"mi": true, "mis": true, "tu": true, "su": true, "sus": true, "que": true,
	"qué": true, "como": true, "cómo": true, "son": true, "esta": true,
	"está": true, "este": true, "estos": true, "estas": true, "ese": true,
	"esa": true, "me": true, "se": true, "le": true, "les": true, "nos": true,
	// French.
	"du": true, "au": true, "aux": true, "et": true, "ou": true, "pour": true,
	"par": true, "avec": true, "sur": true, "dans": true, "ce": true, "cet": true,
	"cette": true, "ces": true, "mon": true, "ma": true, "mes": true, "ton": true,
	"sa": true, "ses": true, "est": true, "sont": true, "qui": true, "quel": true,
	"quelle": true, "à": true, "une": true,
	// Portuguese.
	"os": true, "as": true, "um": true, "uma": true, "do": true, "da": true,
	"dos": true, "no": true, "na": true, "nas": true,
	"em": true, "e": true, "com": true, "meu": true, "minha": true, "meus": true,
	"minhas": true, "seu": true, "sua": true, "é": true, "são": true, "isso": true,
	"esse": true, "essa": true,
	// Italian.
	"il": true, "gli": true, "i": true, "uno": true, "della": true, "dello": true,
	"dei": true, "delle": true, "di": true, "nel": true, "nella": true,
	"mio": true, "mia": true, "è": true, "che": true, "questo": true, "questa": true,
	"per": true,
	// The light verbs "make" and "do" (haz una captura, mache einen
	// Screenshot): the noun after them says what is made, as English
	// "make" says nothing a tool's words do.
	"mach": true, "mache": true, "machen": true, "haz": true, "hacer": true,
	"hace": true, "haga": true, "fais": true, "faire": true, "faites": true,
	"faça": true, "faz": true, "fazer": true, "fai": true, "fare": true,
}

// readsLatin reports whether the request's Latin-script words may be read
// as German or Spanish: it holds none of the English markers, and it shows
// one of the languages itself, by a letter English does not write (ä, ñ,
// é…), by one of their function words, or by a word the bilingual lexicon
// lists as it stands that is no English word the ranker knows. A request
// of plain English words ("date range", "excel formula") shows none, and
// the absence of a few English words is no evidence of another language.
func (s *Analyser) readsLatin() bool {
	evidence := false
	for _, w := range s.raw {
		if englishMarkers[w] {
			return false
		}
		if evidence {
			continue
		}
		switch {
		case foreignMarkers[w]:
			evidence = true
		case !isLatinKey(w):
		case foldLatin(w) != w:
			evidence = true
		default:
			f := token.Singular(w)
			evidence = s.tables.concepts.exact[f] != nil && !s.englishWord(f)
		}
	}
	return evidence
}

// englishWord reports whether the ranker knows the analysed word w as an
// English word of its own lexicon or thesaurus.
func (s *Analyser) englishWord(w string) bool {
	return s.tables.intents[w] != nil || s.tables.expansions[w] != nil
}

// addConceptKeys reads the original words that have no intents of their own
// through the bilingual lexicon (conceptKey), as lemmas: the steps after it
// take the key's English words as the word's intents and verb. Latin-script
// words are read so only in a request that shows German or Spanish
// (readsLatin); and a word the ranker knows as English, or that the tools'
// own text uses as it stands, is never inflected into a German or Spanish
// one (date is no daten, client no cliente).
func (s *Analyser) addConceptKeys() {
	latin := s.readsLatin()
	if latin {
		s.dropFunctionWords()
		s.joinSeparableVerb()
	}
	for _, p := range s.orig {
		if _, ok := s.lemmaOf[p]; ok || s.tables.intents[p] != nil {
			continue
		}
		english := s.englishWord(p)
		if k := s.tables.conceptKey(p, latin && !english, !s.inVocab(p)); k != "" {
			s.lemmaOf[p] = k
		} else if latin && !english && !s.inVocab(p) {
			s.readCompound(p)
		}
	}
}

// separableParticles are the particles a German separable verb leaves at
// the end of its clause ("Lege einen Ordner an", "Benenne die Datei um",
// "Zeig mir die Logs an"): the verb means what particle and verb say
// together (anlegen, umbenennen, anzeigen), not what the verb alone does.
var separableParticles = map[string]bool{
	"an": true, "ab": true, "auf": true, "aus": true, "ein": true, "um": true,
	"zu": true, "vor": true, "nach": true, "mit": true, "weg": true, "los": true,
	"fest": true, "hoch": true, "her": true, "hin": true, "durch": true,
	"zurück": true, "zuruck": true, "runter": true, "rein": true, "raus": true,
	"hinzu": true, "herunter": true,
}

// joinSeparableVerb reads the verb of a German request that ends in a
// separable particle as the particle's verb: the first original term that,
// with the particle put before it, reaches an exact lexicon key (as it
// stands or by an inflection: benenne → umbenennen) takes that key as its
// lemma, in place of any the verb alone has.
func (s *Analyser) joinSeparableVerb() {
	if len(s.raw) < 2 {
		return
	}
	particle := s.raw[len(s.raw)-1]
	if !separableParticles[particle] {
		return
	}
	for _, p := range s.orig {
		if p == particle || len(p)+len(particle) > maxCompoundLen {
			continue
		}
		if k := s.tables.conceptKey(particle+p, true, true); strings.HasPrefix(k, latinMark) {
			s.lemmaOf[p] = k
			return
		}
	}
}

// timeClauseOpeners are the German, Spanish, French, Portuguese and
// Italian words that open a clause of time after the request's operation
// ("Schnappschuss machen, bevor ich update", "saca una instantánea antes de
// actualizar"): the clause says when the operation is wanted, not which.
// Italian prima is left out: it is also "first" (la prima pagina).
var timeClauseOpeners = map[string]bool{
	"bevor": true, "nachdem": true, "antes": true, "después": true, "despues": true,
	"avant": true, "après": true, "apres": true, "dopo": true,
	"depois": true,
}

// timeClauseWeight scales the words of a clause of time against the
// request's own.
const timeClauseWeight = lightWordWeight

// weighTimeClause makes the words after a clause-of-time opener that
// follows the request's first word (timeClauseOpeners) weigh as light
// words, those the request does not use before it.
func (s *Analyser) weighTimeClause() {
	at := -1
	for i, w := range s.raw {
		if i > 0 && timeClauseOpeners[w] {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	before := map[string]bool{}
	for _, w := range s.raw[:at] {
		before[token.Singular(w)] = true
	}
	for j := at + 1; j < len(s.raw); j++ {
		s.rawWeight[j] *= timeClauseWeight
		t := token.Singular(s.raw[j])
		if before[t] {
			continue
		}
		before[t] = true // lighten once
		if w, ok := s.origWeight[t]; ok {
			s.origWeight[t] = w * timeClauseWeight
		}
		if qt, ok := s.weights[t]; ok {
			qt.Weight *= timeClauseWeight
			s.weights[t] = qt
		}
		if l, ok := s.lemmaOf[t]; ok {
			if qt, ok := s.weights[l]; ok {
				qt.Weight *= timeClauseWeight
				s.weights[l] = qt
			}
		}
	}
}

// dropFunctionWords drops the original terms that are function words of
// the request's language (functionWords), as the English ones never become
// terms; their raw words stay, for phrases.
func (s *Analyser) dropFunctionWords() {
	kept := s.orig[:0]
	for _, p := range s.orig {
		if functionWords[p] {
			delete(s.weights, p)
			continue
		}
		kept = append(kept, p)
	}
	s.orig = kept
}

// maxCompoundLen is the longest word readCompound reads, in bytes: longer
// runs of letters are identifiers or pasted data, not compounds, and
// reading them would cost a lookup per letter.
const maxCompoundLen = 40

// minCompoundPart is the shortest part of a compound readCompound reads: a
// shorter one meets too many words by chance.
const minCompoundPart = 4

// compoundLinks are the letters German puts between the parts of a
// compound (Zeitungsartikel, Wochentag): tried off the first part.
var compoundLinks = []string{"", "s", "es", "n", "en"}

// readCompound reads the unknown word p of a German (or Spanish) request as
// a compound of two parts (Luftqualität, Bitcoinkurs, Datenbanktabelle),
// the longest last part first: each part a bilingual word (exactly or
// inflected) or a word the index knows, at least one of them bilingual.
// The last part, the compound's head, becomes p's lemma when bilingual; the
// other part's English words, or the part itself, are put at once. A first
// part that is neither may stand before a long bilingual head
// (minLoneHead), which alone says what the word is.
func (s *Analyser) readCompound(p string) {
	f := foldLatin(p)
	if len(f) < 2*minCompoundPart || len(f) > maxCompoundLen || !isLatinKey(f) {
		return
	}
	part := func(w string) (key string, ok bool) {
		if k, stem := s.tables.concepts.lookup(w, true, true); k != "" && !stem {
			return k, true
		}
		return "", s.inVocab(w) && !token.IsStop(w)
	}
	for cut := minCompoundPart; cut <= len(f)-minCompoundPart; cut++ {
		head := token.Singular(f[cut:])
		hk, hok := part(head)
		if !hok && hk == "" {
			continue
		}
		for _, link := range compoundLinks {
			first, ok := strings.CutSuffix(f[:cut], link)
			if !ok || len(first) < minCompoundPart {
				continue
			}
			fk, fok := part(first)
			switch {
			case fk == "" && hk == "":
				continue
			case !fok && fk == "" && len(head) < minLoneHead:
				// An unknown first part: the compound is read as its head
				// (Architekturdiagramm, a diagram) only where the head is
				// long enough not to end the word by chance.
				continue
			}
			s.origin = s.bitOf(p)
			w := s.origWeight[p]
			if fk != "" {
				for _, t := range s.tables.concepts.exact[fk] {
					s.put(t, intentWeight*w, false)
				}
			} else if fok {
				s.put(first, splitWeight*w, false)
			}
			if hk != "" {
				s.lemmaOf[p] = latinMark + hk
			} else {
				s.put(head, splitWeight*w, false)
			}
			return
		}
	}
}

// minLoneHead is the shortest bilingual head a compound with an unknown
// first part is read as.
const minLoneHead = 6

// foldLatin folds the accented Latin letters of w (lower case) onto their
// plain letters, so that a request written with or without accents meets
// the lexicon's word; w itself when it has none (plain ASCII never has).
func foldLatin(w string) string {
	i := 0
	for i < len(w) && w[i] < utf8.RuneSelf {
		i++
	}
	if i == len(w) {
		return w
	}
	var b strings.Builder
	changed := false
	for _, r := range w {
		if f, ok := latinFolds[r]; ok {
			b.WriteString(f)
			changed = true
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return w
	}
	return b.String()
}

// umlautSpelling writes German umlauts and ß out, as keyboards without them
// do.
var umlautSpelling = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss")

// latinFolds are the lower-case accented letters of the lexicon's Latin
// languages (German, Spanish) and their neighbours, with their plain forms.
var latinFolds = map[rune]string{
	'á': "a", 'à': "a", 'â': "a", 'ä': "a", 'ã': "a", 'å': "a",
	'é': "e", 'è': "e", 'ê': "e", 'ë': "e",
	'í': "i", 'ì': "i", 'î': "i", 'ï': "i",
	'ó': "o", 'ò': "o", 'ô': "o", 'ö': "o", 'õ': "o",
	'ú': "u", 'ù': "u", 'û': "u", 'ü': "u",
	'ñ': "n", 'ç': "c", 'ß': "ss",
}
