package query

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/thesaurus"
	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
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
	exact    table[string] // word, or words joined by one space → English words
	stems    table[string] // stem → English words
	phrases  table[string] // stems joined by one space, each marked stemMark → English words
	notStem  table[string] // stem → beginnings of words that are not its word (lexicon.BilingualStemExceptions)
	maxWords int           // the longest exact key, in words
}

// latinMark marks, in the query's intents, a bilingual word in Latin script
// (German, Spanish, French, Portuguese, Italian), and stemMark a stem: such keys are reached only through
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
// space (folded, see foldLatin), or nil. The list is the lexicon's, shared
// with other keys: the caller must not modify it.
func (c *Concepts) Phrase(key []byte) []string { return c.exact.getBytes(key) }

// Word returns the English words of the analysed word w: its own entry, or
// that of the longest stem it begins with, or nil. The list is the
// lexicon's, shared with other keys: the caller must not modify it.
func (c *Concepts) Word(w string) []string {
	switch k, stem := c.lookup(w, true, 0, nil); {
	case k == "":
		return nil
	case stem:
		return c.stems.get(k)
	default:
		return c.exact.get(k)
	}
}

// lookup returns the key the analysed word w reaches in the lexicon: when
// exact, its own exact key, or that of its folded form (foldLatin), or
// that of one of its inflections in the languages inflect (Concepts.inflected,
// buf its buffer); else the longest stem its folded form begins with (stem
// set); or "".
func (c *Concepts) lookup(w string, exact bool, inflect latinLang, buf *[]byte) (key string, stem bool) {
	f := foldLatin(w)
	if exact {
		if c.exact.get(w) != nil {
			return w, false
		}
		if c.exact.get(f) != nil {
			return f, false
		}
		if inflect != 0 {
			if k := c.inflected(f, inflect, buf); k != "" {
				return k, false
			}
			// A key keeps its accents where the lexicon spells it so
			// (ändern): geänderte reaches it only unfolded.
			if k := c.inflected(w, inflect, buf); w != f && k != "" {
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
// joined by one space, "виртуальн* машин*"), or nil. The list is the
// lexicon's, shared with other keys: the caller must not modify it.
func (c *Concepts) StemPhrase(key []byte) []string { return c.phrases.getBytes(key) }

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
		if rest, ok := strings.CutPrefix(w, p); ok && utf8.RuneCountInString(rest) >= minPrefixedRest && russianVerbForm(rest) {
			if k := c.stemOf(rest); k != "" && c.verbStem(k) {
				return k
			}
		}
	}
	return ""
}

// verbStem reports whether the stem k stands for an English verb: only a
// verb takes an aspect prefix or a verb ending (подождать is to wait, not
// rain; выключить to switch off, not a key; голосовать to vote, not a
// voice).
func (c *Concepts) verbStem(k string) bool {
	for _, w := range c.stems.get(k) {
		if words.VerbClass(w) != 0 || englishVerbs[w] {
			return true
		}
	}
	return false
}

// englishVerbs are the English words of bilingual stems that are verbs,
// beyond the tool verbs words.VerbClass knows.
var englishVerbs = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`accept analyze approve assign attach back broadcast book buy
		calculate click comment commit compare compress connect convert cook copy count crop
		decline delay deploy disable draw enable estimate explain export extract fill filter
		import invite login monitor move order pay play purchase quote reboot register remember
		report restart restore review rotate schedule scroll select share sort test translate
		type upload write save send print publish close pin edit`) {
		englishVerbs[w] = true
	}
}

// russianVerbEndings are the endings of the Russian verb forms requests
// use: infinitives, imperatives, present and past forms.
var russianVerbEndings = []string{"ть", "ти", "чь", "те", "й", "и", "ю", "ет", "ит", "ут", "ют", "ат", "ят", "л", "ла", "ли", "ло", "ся", "сь"}

// russianVerbForm reports whether w ends as a Russian verb form does.
func russianVerbForm(w string) bool {
	for _, e := range russianVerbEndings {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
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
	if c.stems.len() == 0 || len(w) < 2 {
		return ""
	}
	for _, e := range verbEndings {
		if base, ok := strings.CutSuffix(w, e); ok {
			if c.stems.has(base) && c.verbStem(base) && !c.otherWord(base, w) {
				return base
			}
		}
	}
	end, tail := len(w), 0
	for end > 0 && tail <= maxStemTail {
		if c.stems.has(w[:end]) {
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
	for _, x := range c.notStem.get(stem) {
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

// inflections are the endings the Latin languages' words of tool
// requests take and lose against the lexicon's form, each with the
// languages it is theirs in: a rule is tried only in a request read as
// one of them, so that a German word is not read by a Spanish rule, nor
// an English one by a French rule. Each is tried as a suffix to cut and
// one to put in its place, in this order; the first that reaches a key
// wins.
var inflections = []struct {
	cut, put string
	langs    latinLang
}{
	// German plurals and infinitives (Karten, Dateien, zeigen against
	// Karte, Datei, zeig), imperatives against infinitives (lösche,
	// erstelle against löschen, erstellen).
	{"en", "", langDE}, {"n", "", langDE}, {"e", "", langDE}, {"er", "", langDE}, {"es", "", langDE},
	{"", "n", langDE}, {"", "en", langDE}, {"", "e", langDE},
	// Imperatives against infinitives (busca, escribe against buscar,
	// escribir; supprime against supprimer).
	{"", "r", langES | langPT | langFR}, {"e", "ir", langES | langPT}, {"e", "er", langES | langPT}, {"a", "ar", langES | langPT},
	// German present tense against the infinitive or the stem (sucht,
	// zeigt, speichert, löscht against suchen, zeig, speichern, löschen).
	{"t", "en", langDE}, {"st", "en", langDE}, {"t", "n", langDE}, {"t", "", langDE}, {"st", "", langDE},
	// Spanish usted imperatives and subjunctives, with their spelling
	// changes (busque, pague, traduzca, envíe, lea, escriba), first- and
	// third-person preterites (busqué, leí, buscó, escribió), gerunds and
	// participles (buscando, leyendo, guardado, subido); Portuguese forms
	// alike.
	{"que", "car", langES}, {"gue", "gar", langES}, {"zca", "cir", langES}, {"zca", "cer", langES}, {"ce", "zar", langES},
	{"e", "ar", langES | langPT}, {"en", "ar", langES | langPT}, {"a", "er", langES | langPT}, {"a", "ir", langES | langPT},
	{"an", "er", langES | langPT}, {"an", "ir", langES | langPT},
	{"i", "er", langES}, {"i", "ir", langES}, {"o", "ar", langES}, {"io", "er", langES}, {"io", "ir", langES},
	{"ando", "ar", langES | langPT}, {"iendo", "er", langES}, {"iendo", "ir", langES}, {"yendo", "er", langES},
	{"ado", "ar", langES | langPT}, {"ada", "ar", langES | langPT}, {"ido", "er", langES | langPT}, {"ido", "ir", langES | langPT},
	// Spanish plurals in -es, once the query's s is gone (colecciones,
	// ciudades against colección, ciudad).
	{"e", "", langES},
	// French and Italian imperatives against infinitives (envoyez,
	// cherchez; cerca, leggi, apri against cercare, leggere, aprire).
	{"ez", "er", langFR}, {"a", "are", langIT}, {"e", "are", langIT}, {"i", "ere", langIT}, {"i", "ire", langIT},
	// Feminine participles of -er and -ir verbs (concluída, subida),
	// French feminine participles and gerunds (supprimée, cherchant).
	{"ida", "ir", langES | langPT}, {"ida", "er", langES | langPT},
	{"ee", "er", langFR}, {"ant", "er", langFR},
	// German past tense and participles as adjectives (änderte,
	// gespeicherte, geänderten against ändern, speichern).
	{"te", "n", langDE}, {"te", "en", langDE}, {"ten", "n", langDE}, {"ten", "en", langDE},
	{"ter", "n", langDE}, {"ter", "en", langDE}, {"tes", "n", langDE}, {"tes", "en", langDE},
	// Nouns of the act against their verb: German -ung (Änderung,
	// Speicherung, Löschung), Spanish -miento and -ción, Portuguese -mento
	// and -ção, French -ement (téléchargement).
	{"ung", "n", langDE}, {"ung", "en", langDE},
	{"amiento", "ar", langES}, {"imiento", "er", langES}, {"imiento", "ir", langES}, {"acion", "ar", langES},
	{"amento", "ar", langPT}, {"imento", "er", langPT}, {"imento", "ir", langPT}, {"acao", "ar", langPT},
	{"ement", "er", langFR},
}

// The Latin languages do an operation again with English's againPrefix
// (reprogramar, reenviar, redémarrer): a word the rules do not reach is
// tried without it, and the English re- + the key's word is then searched
// for as well, where the index has it (reschedule).

// minAgainRest is the fewest letters left after an again prefix.
const minAgainRest = 5

// enclitics are the pronouns a Spanish (and Italian) imperative carries
// joined to its end (guárdalo, envíamelo, muéstrales; mandami), longest
// first; the verb is read without them. Plural forms lose their s as every
// query word does (los → lo).
var enclitics = []string{"melo", "mela", "selo", "sela", "telo", "tela", "nos", "me", "te", "lo", "la", "le", "se", "mi", "ci", "gli"}

// encliticLangs are the languages whose imperatives carry enclitics.
const encliticLangs = langES | langIT

// participlePrefix is the German past participle's prefix (gelöscht,
// gespeichert): read without it, the rest is the present stem. A word
// read so ends as a participle does (participleEndings): Gespräch is no
// ge-participle.
const participlePrefix = "ge"

var participleEndings = []string{"t", "en", "te", "ten", "ter", "tes"}

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
// by one of the inflections of the languages langs, the first that does;
// else by one after dropping an enclitic pronoun or the participle prefix;
// or "". buf is a buffer for the forms tried, so that a miss allocates
// nothing.
func (c *Concepts) inflected(f string, langs latinLang, buf *[]byte) string {
	if k := c.inflectedAs(f, langs, buf); k != "" {
		return k
	}
	if k := c.undoStemVowel(f, langs, buf); k != "" {
		return k
	}
	if langs&encliticLangs != 0 {
		for _, e := range enclitics {
			if base, ok := strings.CutSuffix(f, e); ok && len(base) >= minInflectedKey {
				if c.exact.get(base) != nil {
					return base
				}
				if k := c.inflectedAs(base, langs, buf); k != "" {
					return k
				}
				if k := c.undoStemVowel(base, langs, buf); k != "" {
					return k
				}
			}
		}
	}
	if rest, ok := strings.CutPrefix(f, participlePrefix); ok && langs&langDE != 0 && len(rest) > minInflectedKey {
		for _, end := range participleEndings {
			if strings.HasSuffix(rest, end) {
				return c.inflectedAs(rest, langs, buf)
			}
		}
	}
	return ""
}

// again returns the exact key the folded word f reaches once the again
// prefix (againPrefix) is cut, as it stands or by an inflection of langs,
// or "": only a verb's key, an infinitive (infinitiveEndings), since a noun
// that begins so is mostly a word of its own (repetición is no petición
// again).
func (c *Concepts) again(f string, langs latinLang, buf *[]byte) string {
	rest, ok := strings.CutPrefix(f, againPrefix)
	if !ok || len(rest) < minAgainRest {
		return ""
	}
	k := rest
	if c.exact.get(k) == nil {
		k = c.inflected(rest, langs, buf)
	}
	for _, e := range infinitiveEndings {
		if k != "" && strings.HasSuffix(k, e) {
			return k
		}
	}
	return ""
}

// infinitiveEndings are the endings of the Romance languages' infinitives
// (-ar, -er, -ir; French -re, Italian -are, -ere, -ire).
var infinitiveEndings = []string{"ar", "er", "ir", "re"}

// stemVowels are the diphthongs a Spanish stem-changing verb takes where
// its stem is stressed (vuelve, cierra, encuentra, prueba against volver,
// cerrar, encontrar, probar), each with the vowel of the infinitive.
var stemVowels = []struct{ cut, put string }{{"ue", "o"}, {"ie", "e"}}

// undoStemVowel returns the exact key the folded word f reaches by one of
// the Spanish inflections once the first diphthong of stemVowels in it is
// put back to its vowel, or "" (always, unless langs holds Spanish).
func (c *Concepts) undoStemVowel(f string, langs latinLang, buf *[]byte) string {
	if langs&langES == 0 {
		return ""
	}
	for _, v := range stemVowels {
		if i := strings.Index(f, v.cut); i > 0 {
			if k := c.inflectedAs(f[:i]+v.put+f[i+len(v.cut):], langES, buf); k != "" {
				return k
			}
		}
	}
	return ""
}

// inflectedAs returns the exact key f reaches by one of the inflections
// of langs, or "".
func (c *Concepts) inflectedAs(f string, langs latinLang, buf *[]byte) string {
	for _, in := range inflections {
		if in.langs&langs == 0 {
			continue
		}
		base, ok := strings.CutSuffix(f, in.cut)
		if !ok || len(base)+len(in.put) < minInflectedKey || in.put == in.cut {
			continue
		}
		*buf = append(append((*buf)[:0], base...), in.put...)
		if c.exact.getBytes(*buf) != nil {
			return string(*buf)
		}
	}
	return ""
}

// stemPhraseKey is the key of the phrase k of the lexicon, whose analysed
// words are ws: each word written with its "*" marked as a stem.
func stemPhraseKey(k string, ws []string) string {
	fields := strings.Fields(k)
	marked := make([]string, len(ws))
	for i, w := range ws {
		marked[i] = w
		if len(fields) != len(ws) || strings.HasSuffix(fields[i], "*") {
			marked[i] += stemMark
		}
	}
	return strings.Join(marked, " ")
}

// buildConcepts reads the bilingual lexicon into analysed form: each key's
// words as queries and documents split them (CJK as character pairs), plural
// folded, accents folded. A stem stays one word and keeps its "*" in intents,
// where no analysed word can collide with it.
func buildConcepts() *conceptMaps {
	c := &conceptMaps{exact: map[string][]string{}, stems: map[string][]string{}, phrases: map[string][]string{}, notStem: map[string][]string{}}
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
			// reads its words' lemmas; a word without its "*" is met as
			// written ("в качеств*", the grammar's "as").
			key := stemPhraseKey(k, ws)
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
	addVerbForms(c.exact)
	return c
}

// verbForms are, per the last kana of a Japanese verb's dictionary form
// (歩く, 送る, 消す), the kana its other forms end the same kanji with
// (歩き, 歩いて, 歩かない, 送って, 消します): the lexicon writes a verb once,
// and a request or a description uses any of its forms. Particles (の, に,
// と, が, か) are left out: after a kanji they begin no verb's form but are
// read as particles.
var verbForms = map[rune][]rune{
	'く': []rune("きけこい"), 'ぐ': []rune("ぎげごい"), 'す': []rune("さしせそ"),
	'つ': []rune("たちてっ"), 'ぶ': []rune("ばびべぼん"), 'む': []rune("まみめん"),
	'う': []rune("わいえおっ"), 'る': []rune("らりれろっ"),
}

// addVerbForms adds to exact, for each key that ends in a Japanese verb's
// dictionary form (a kanji and the kana of verbForms), the same key ending
// in each of the verb's other forms, where the lexicon has no such key.
func addVerbForms(exact map[string][]string) {
	keys := make([]string, 0, len(exact))
	for k := range exact {
		keys = append(keys, k)
	}
	slices.Sort(keys) // two verbs of one kanji and form join their senses in one order
	added := map[string]bool{}
	for _, k := range keys {
		last, size := utf8.DecodeLastRuneInString(k)
		before, _ := utf8.DecodeLastRuneInString(k[:len(k)-size])
		forms := verbForms[last]
		if forms == nil || !unicode.Is(unicode.Han, before) {
			continue
		}
		for _, f := range forms {
			form := k[:len(k)-size] + string(f)
			if _, ok := exact[form]; ok && !added[form] {
				continue
			}
			added[form] = true
			exact[form] = union(exact[form], exact[k])
		}
	}
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
// are the languages by whose inflections a Latin word may reach a key
// (Concepts.inflected), buf their buffer.
func (tb *queryTables) conceptKey(w string, latin bool, inflect latinLang, buf *[]byte) string {
	latin = latin && isLatinKey(foldLatin(w))
	if !latin {
		inflect = 0
	}
	switch k, stem := tb.concepts.lookup(w, latin, inflect, buf); {
	case k == "", stem && latin && inflect == 0:
		// A Latin word reaches a stem only where it may be inflected.
		return ""
	case stem:
		return k + stemMark
	default:
		return latinMark + k
	}
}

// englishMarkers are words only an English sentence uses. A request holding
// one is English, and a word in it that looks like a Latin language's ("Rama",
// "nota") is a name or a borrowed word, not the request's language.
var englishMarkers = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "for": true, "with": true,
	"my": true, "is": true, "are": true, "this": true, "that": true, "what": true,
	"how": true, "from": true, "please": true, "you": true, "your": true,
	"it": true, "i": true, "can": true, "which": true, "our": true, "we": true,
}

// latinLang is a set of the Latin-script languages the bilingual lexicon
// reads beside English.
type latinLang uint8

const (
	langDE latinLang = 1 << iota
	langES
	langFR
	langPT
	langIT

	anyLatinLang = langDE | langES | langFR | langPT | langIT
)

// How much a word alone says that a request is written in one of the
// Latin languages (readsLatin): a request needs wordStrong in all.
const (
	wordNone   = 0
	wordWeak   = 1 // an English word too, or an accent on a function word
	wordStrong = 2
)

// latinWord is what a word tells of the Latin languages: which of them
// use it, how much it alone says of them, and whether it is a function
// word, dropped from a request read as one of them (dropFunctionWords).
type latinWord struct {
	langs    latinLang
	evidence int8
	function bool
}

// latinWordLists are, per language, its articles, prepositions,
// conjunctions and pronouns, and the light verbs "make" and "do" (haz una
// captura, mache einen Screenshot: the noun after them says what is made).
// markers are function words English does not spell; englishSpelled
// those it does ("mit", "con", "pour", "os", "el"), which say nothing
// without another word of the language; function, those that say nothing
// of the language ("die", "es", "de"); and keptMarkers, words that show
// the language but stay search terms (heute, hoy).
var latinWordLists = []struct {
	lang                                           latinLang
	markers, englishSpelled, function, keptMarkers string
}{
	{langDE,
		"der das dem ein eine einen einem einer und oder von fur für auf aus nach zum zur ist sind nicht alle meine meinen mein bitte wie ich mir mich uns unsere",
		"mit des",
		"die den vom zu im ins am bei es was wo meiner dieser diese diesen dieses wird werden kann soll muss habe hat haben gibt mach mache machen",
		"welche heute morgen"},
	{langES,
		"las del una unos unas para por mis que qué como cómo esta este estos sus",
		"el con mi los",
		"la lo un al de en y o tu su son está estas ese esa me se le les nos haz hacer hace haga",
		"hoy todas nuestro nuestra cual cuál dónde donde cuando cuándo ayer"},
	{langFR,
		"une avec dans cette ces sont quel quelle",
		"le les du au aux pour sur ce mon mes",
		"et ou par cet ma ton sa ses est qui à fais faire faites",
		"aujourd demain"},
	{langPT,
		"uma meu minha isso",
		"os um dos em na nas nos",
		"as do da no e com meus minhas seu sua é são esse essa faça faz fazer",
		"hoje amanhã amanha"},
	{langIT,
		"gli della delle nel nella mio mia questo questa",
		"il dei di",
		"i uno dello è che per fai",
		"oggi domani"},
}

// latinWords is latinWordLists by word.
var latinWords = func() map[string]latinWord {
	m := map[string]latinWord{}
	add := func(words string, l latinLang, evidence int8, function bool) {
		for _, w := range strings.Fields(words) {
			cur := m[w]
			cur.langs |= l
			cur.evidence = max(cur.evidence, evidence)
			cur.function = cur.function || function
			m[w] = cur
		}
	}
	for _, l := range latinWordLists {
		add(l.markers, l.lang, wordStrong, true)
		add(l.englishSpelled, l.lang, wordWeak, true)
		add(l.function, l.lang, wordNone, true)
		add(l.keptMarkers, l.lang, wordStrong, false)
	}
	return m
}()

// englishHomographs are keys of the bilingual lexicon that are English
// words too ("pasta", "lager", "costa", "gib"; singular, as the analyser
// writes words: lie for lies): such a key says nothing of
// a request's language, and is read only in a request that shows one by
// other words.
var englishHomographs = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`pasta lager rota regen canal lie rappel gib ami costa nova
		devise spiel pied dame plat retard boutique lien valor dossier tempo trae prix carte
		cola depot clique fuss`) {
		englishHomographs[w] = true
	}
}

// accentLangs are the languages that write each accented letter.
var accentLangs = map[rune]latinLang{
	'ä': langDE, 'ö': langDE, 'ü': langDE, 'ß': langDE,
	'ñ': langES, 'ã': langPT, 'õ': langPT, 'ç': langFR | langPT,
	'è': langFR | langIT, 'à': langFR | langIT | langPT, 'ì': langIT, 'ò': langIT, 'ù': langIT | langFR,
	'ê': langFR | langPT, 'â': langFR | langPT, 'î': langFR, 'ô': langFR | langPT, 'û': langFR,
	'ë': langFR, 'ï': langFR,
	'é': langES | langFR | langPT | langIT,
	'á': langES | langPT, 'í': langES | langPT | langIT, 'ó': langES | langPT | langIT, 'ú': langES | langPT | langIT,
}

// readsLatin reports whether the request's Latin-script words may be read
// as German, Spanish, French, Portuguese or Italian, and which of them:
// it holds none of the English markers, and its words show one of the
// languages by wordStrong in all (wordEvidence). A request of plain
// English words ("date range", "excel formula") shows none, and the
// absence of a few English words is no evidence of another language; nor
// is one word English spells too ("os environment variables", "con
// artist", "pasta recipe"). The languages are those the markers and
// accents show, or all where only lexicon words show them.
func (s *Analyser) readsLatin() (bool, latinLang) {
	score := 0
	var langs latinLang
	for i, w := range s.raw {
		if englishMarkers[w] && !s.italianI(i) {
			return false, 0
		}
		e, l := s.wordEvidence(w)
		score += e
		langs |= l
	}
	if score < wordStrong {
		return false, 0
	}
	if langs == 0 {
		langs = anyLatinLang
	}
	return true, langs
}

// italianI reports whether raw word i is Italian "i" (the plural article)
// rather than English "I": a word beside it shows a Latin language
// strongly ("elimina i messaggi", "mostra i file").
func (s *Analyser) italianI(i int) bool {
	if s.raw[i] != "i" {
		return false
	}
	for _, j := range [2]int{i - 1, i + 1} {
		if j >= 0 && j < len(s.raw) && !englishMarkers[s.raw[j]] {
			if e, _ := s.wordEvidence(s.raw[j]); e >= wordStrong {
				return true
			}
		}
	}
	return false
}

// wordEvidence returns how much the raw word w alone says that a request
// is written in a Latin language, and which: a marker says what
// latinWords gives; an accent English does not write says wordStrong
// (wordWeak on a function word: "São Paulo"); a word the bilingual
// lexicon lists as it stands says wordStrong unless the ranker knows it
// as English or it is an English homograph.
func (s *Analyser) wordEvidence(w string) (int, latinLang) {
	lw, listed := latinWords[w]
	if lw.evidence > wordNone {
		return int(lw.evidence), lw.langs
	}
	switch f := foldLatin(w); {
	case !isLatinKey(w):
		return wordNone, 0
	case f != w:
		var l latinLang
		for _, r := range w {
			l |= accentLangs[r]
		}
		if listed {
			return wordWeak, l
		}
		return wordStrong, l
	case listed:
		// A function word English spells too ("die", "es", "de").
		return wordNone, 0
	default:
		f = token.Singular(w)
		if s.tables.concepts.exact.get(f) != nil && !s.englishWord(f) && !englishHomographs[f] {
			return wordStrong, 0
		}
		return wordNone, 0
	}
}

// englishWord reports whether the ranker knows the analysed word w as an
// English word of its own lexicon or thesaurus.
func (s *Analyser) englishWord(w string) bool {
	return s.tables.intents.get(w) != nil || s.tables.expansions.get(w) != nil
}

// addConceptKeys reads the original words that have no intents of their own
// through the bilingual lexicon (conceptKey), as lemmas: the steps after it
// take the key's English words as the word's intents and verb. Latin-script
// words are read so only in a request that shows a Latin language
// (readsLatin), by the inflections of the languages it shows; and a word
// the ranker knows as English, or that the tools' own text uses as it
// stands, is never inflected into a foreign one (date is no daten, client
// no cliente). At most maxCompounds words are read as compounds.
func (s *Analyser) addConceptKeys() {
	latin, langs := s.readsLatin()
	if latin {
		// Whatever languages the markers show: a particle and a verb that
		// together are a German key are evidence enough. And before the
		// function words go, since a particle (um, an) is one of them in
		// another language.
		s.joinSeparableVerb()
		s.dropFunctionWords()
	}
	s.compounds = 0
	for _, p := range s.orig {
		if s.conceptRead[p] {
			// A word the request repeats reads as it did: firstAt no
			// longer tells the first occurrence once the function words
			// are gone.
			continue
		}
		s.conceptRead[p] = true
		if _, ok := s.lemmaOf[p]; ok && s.lemmaScale[p] == 0 || s.tables.intents.get(p) != nil {
			// An English reading by form (readForm) gives way to a
			// foreign word's key.
			continue
		}
		english := s.englishWord(p)
		inflect := langs
		if s.inVocab(p) {
			inflect = 0
		}
		if k := s.tables.conceptKey(p, latin && !english, inflect, &s.inflection); k != "" {
			s.dropFormReading(p)
			s.lemmaOf[p] = k
			delete(s.lemmaScale, p)
			if key, ok := strings.CutPrefix(k, latinMark); ok && participleOf(p, key, langs) {
				s.foreignForm(p, pastParticiple)
			}
		} else if k := s.readAgain(p, latin && !english, inflect); k != "" {
			s.dropFormReading(p)
			s.lemmaOf[p] = latinMark + k
			// The operation again is not quite the operation: as sure
			// as an English re- reading (againWeight).
			s.lemmaScale[p] = againWeight
			s.foreignForm(p, again)
		} else if b := s.readCognateOf(p, latin && !english, inflect); b != "" {
			s.dropFormReading(p)
			s.lemmaOf[p] = b
			s.lemmaScale[p] = cognateWeight
			// An ending is a guess at the word, not at its senses.
			s.family[p] = true
			s.origin = s.bitOf(p)
			s.put(b, s.origWeight[p]*cognateWeight, false)
		} else if _, read := s.lemmaOf[p]; !read && latin && !english && !s.inVocab(p) && s.compounds < maxCompounds {
			s.compounds++
			s.readCompound(p, langs)
		}
	}
}

// dropFormReading takes back the English word that readForm read the
// original term p as (ranger → range), once p is read as a foreign word:
// the word's term goes where p alone put it.
func (s *Analyser) dropFormReading(p string) {
	l, ok := s.lemmaOf[p]
	if _, byForm := s.lemmaScale[p]; !ok || !byForm {
		return
	}
	if t, ok := s.weights[l]; ok && t.Origin == s.bitOf(p) && !t.Strong {
		delete(s.weights, l)
	}
	delete(s.family, p)
}

// readCognateOf returns the English word of the index the unknown word p
// of a request read as the Latin languages langs is a cognate of
// (readCognate), or "". A word the index knows comes with no langs.
func (s *Analyser) readCognateOf(p string, latin bool, langs latinLang) string {
	if !latin || langs == 0 {
		return ""
	}
	return readCognate(foldLatin(p), langs, s.vocab, &s.form)
}

// readAgain returns the key the unknown word p of a request read as the
// Latin languages langs reaches without an again prefix (reprogramar →
// programar), or "". German, whose infinitives end in -n, forms none so.
// A word the index knows comes with no langs.
func (s *Analyser) readAgain(p string, latin bool, langs latinLang) string {
	if !latin || langs == 0 {
		return ""
	}
	return s.tables.concepts.again(foldLatin(p), langs, &s.inflection)
}

// participleOf reports whether the word p of a request read as the
// languages langs is a past participle of the verb whose key it reached,
// k: Spanish and Portuguese -ado, -ada, -ido, -ida of an -ar, -er or -ir
// key; German ge-…-t and its adjective endings of the key's verb; French -é, -ée of an -er
// key. A word that is a key itself is none (estado is a state, not a
// stated thing), nor a preterite (busqué).
func participleOf(p, k string, langs latinLang) bool {
	f, k := foldLatin(p), foldLatin(k)
	if langs&(langES|langPT) != 0 {
		for _, e := range []string{"ado", "ada", "ido", "ida"} {
			if stem, ok := strings.CutSuffix(f, e); ok && (k == stem+"ar" || k == stem+"er" || k == stem+"ir") {
				return true
			}
		}
	}
	if rest, ok := strings.CutPrefix(f, participlePrefix); ok && langs&langDE != 0 {
		// Of the key's own verb: Gewicht is a key of its own, no
		// participle of a verb wichten.
		for _, e := range participleEndings {
			if stem, ok := strings.CutSuffix(rest, e); ok && (k == stem+"en" || k == stem+"n" || k == stem) {
				return true
			}
		}
	}
	if langs&langFR != 0 && (strings.HasSuffix(p, "é") || strings.HasSuffix(p, "ée")) {
		return k == f+"r" || k == strings.TrimSuffix(f, "e")+"r"
	}
	return false
}

// An English form of a foreign word's English words: what a participle
// or a verb with an again prefix says in the tools' English.
type englishForm int

const (
	pastParticiple englishForm = iota // completadas → completed
	again                             // reprogramar → reschedule
)

// foreignForm puts, for the foreign word p read as its key, the English
// form f of each of the key's English words, where the index has it
// (completada → complete → completed; reprogramar → schedule →
// reschedule), at the weight of a lemma's intent.
func (s *Analyser) foreignForm(p string, f englishForm) {
	s.origin = s.bitOf(p)
	w := intentWeight * lemmaWeight * s.origWeight[p]
	for _, t := range s.tables.intents.get(s.lemmaOf[p]) {
		switch f {
		case pastParticiple:
			s.putPast(t, w)
		case again:
			s.form = append(append(s.form[:0], againPrefix...), t...)
			if s.inVocab(string(s.form)) {
				s.put(string(s.form), w, false)
			}
		}
	}
}

// putPast puts the -ed forms of verb t at weight w where the index has them.
// English spells the form three ways (saved, copied, stopped) and no rule of
// letters says which verbs double (stopped, edited), so the index's
// vocabulary decides. The doubled and y-to-i spellings are tried first: they
// are seldom another word, where the plain spelling of a doubling verb often
// is (tap: taped, of tape).
func (s *Analyser) putPast(t string, w float64) {
	for v := range pastSpellings {
		var ok bool
		if s.form, ok = appendPast(s.form[:0], t, v); ok && s.inVocab(string(s.form)) {
			s.put(string(s.form), w, false)
			return
		}
	}
}

// pastSpellings counts appendPast's spellings of an -ed form.
const pastSpellings = 3

// appendPast appends to b the v-th spelling of verb t's -ed form: the final
// consonant doubled after one vowel (stopped), a consonant's y turned to i
// (copied), or the plain one (saved, searched); ok is false, and b as it
// was, where t's letters do not allow that spelling.
func appendPast(b []byte, t string, v int) (_ []byte, ok bool) {
	n := len(t)
	switch v {
	case 0:
		if n > 2 && !token.IsVowel(t[n-1]) && !strings.ContainsRune("wxy", rune(t[n-1])) &&
			token.IsVowel(t[n-2]) && !token.IsVowel(t[n-3]) {
			return append(append(append(b, t...), t[n-1]), "ed"...), true
		}
	case 1:
		if n > 2 && t[n-1] == 'y' && !token.IsVowel(t[n-2]) {
			return append(append(b, t[:n-1]...), "ied"...), true
		}
	default:
		b = append(b, t...)
		if !strings.HasSuffix(t, "e") {
			b = append(b, 'e')
		}
		return append(b, 'd'), true
	}
	return b, false
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
		if k := s.tables.conceptKey(particle+p, true, langDE, &s.inflection); strings.HasPrefix(k, latinMark) {
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
// the request's language (latinWords), as the English ones never become
// terms; their raw words stay, for phrases.
func (s *Analyser) dropFunctionWords() {
	kept := s.orig[:0]
	for _, p := range s.orig {
		if latinWords[p].function {
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

// maxCompounds is the most unknown words of one request readCompound
// reads: a request of many (a pasted log) costs a bounded number of
// lookups, and a short request has few.
const maxCompounds = 8

// minCompoundPart is the shortest part of a compound readCompound reads: a
// shorter one meets too many words by chance.
const minCompoundPart = 4

// compoundLinks are the letters German puts between the parts of a
// compound (Zeitungsartikel, Wochentag): tried off the first part.
var compoundLinks = []string{"", "s", "es", "n", "en"}

// readCompound reads the unknown word p of a request read as the Latin
// languages langs (German above all) as a compound of two parts
// (Luftqualität, Bitcoinkurs, Datenbanktabelle), the longest last part
// first: each part a bilingual word (exactly or inflected by the rules of
// langs) or a word the index knows, at least one of them bilingual.
// The last part, the compound's head, becomes p's lemma when bilingual; the
// other part's English words, or the part itself, are put at once. A first
// part that is neither may stand before a long bilingual head
// (minLoneHead), which alone says what the word is. A part the ranker
// knows as English stays English, and a word whose head is one is no
// compound (velocity is no vélo and city).
func (s *Analyser) readCompound(p string, langs latinLang) {
	f := foldLatin(p)
	if len(f) < 2*minCompoundPart || len(f) > maxCompoundLen || !isLatinKey(f) {
		return
	}
	part := func(w string) (key string, ok bool) {
		if s.englishPart(w) {
			return "", s.inVocab(w) && !token.IsStop(w)
		}
		if k, stem := s.tables.concepts.lookup(w, true, langs, &s.inflection); k != "" && !stem {
			return k, true
		}
		return "", s.inVocab(w) && !token.IsStop(w)
	}
	for cut := minCompoundPart; cut <= len(f)-minCompoundPart; cut++ {
		head := token.Singular(f[cut:])
		if s.englishPart(head) {
			continue
		}
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
				for _, t := range s.tables.concepts.exact.get(fk) {
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

// englishPart reports whether the part w of a word is an English word: one
// the ranker knows, or one of the general-English thesaurus (the city of
// velocity, the command of buildcommand).
func (s *Analyser) englishPart(w string) bool {
	if s.englishWord(w) {
		return true
	}
	_, ok := thesaurus.Lookup(w)
	return ok && thesaurus.PlainWord(w)
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
