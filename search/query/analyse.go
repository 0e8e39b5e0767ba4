package query

import (
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/search/token"
	"github.com/zot-mcp/mcp-bridge/search/words"
)

// Weights of query terms derived from the query's shape.
const (
	// joinWeight applies to adjacent query words joined into one indexed word
	// ("roll back" → "rollback", "who am i" → "whoami").
	joinWeight = 0.8
	// splitWeight applies to the parts of an unknown query word split into
	// two indexed words ("flowchart" → "flow" "chart").
	splitWeight = 0.8
	// shapeWeight applies to the implied kind of a file- or URL-shaped word
	// ("notes.md" → "file", "example.com" → "url").
	shapeWeight = 1.0
	// shapedWordWeight applies to the words inside such a file name or URL,
	// or an identifier (db-1, #ops).
	shapedWordWeight = 0.3
	// minJoinLen and minSplitPart bound joins and splits to avoid accidents.
	minJoinLen   = 5
	minSplitPart = 3
)

// fileExtensions mark a dotted word as a file name.
var fileExtensions = map[string]bool{
	"go": true, "md": true, "txt": true, "yaml": true, "yml": true,
	"json": true, "py": true, "js": true, "ts": true, "tsx": true,
	"jsx": true, "pdf": true, "png": true, "jpg": true, "jpeg": true,
	"gif": true, "svg": true, "webp": true, "csv": true, "html": true,
	"css": true, "toml": true, "xml": true, "sh": true, "rs": true,
	"java": true, "c": true, "h": true, "cpp": true, "log": true,
	"env": true, "lock": true, "zip": true, "gz": true, "tar": true,
	"sql": true, "ipynb": true, "rb": true, "php": true, "swift": true,
	"kt": true, "mp4": true, "mp3": true, "wav": true, "docx": true,
	"xlsx": true, "ini": true, "conf": true, "cfg": true, "proto": true,
	"mod": true, "sum": true, "tf": true, "dockerfile": true,
	// Dot-files: ".gitignore" is a file name whose extension is all of it.
	"gitignore": true, "dockerignore": true, "npmrc": true, "editorconfig": true,
	"bashrc": true, "zshrc": true, "prettierrc": true, "eslintrc": true,
}

// wellKnownFiles are file names without an extension that name a file all
// the same ("the Dockerfile", "update the README").
var wellKnownFiles = map[string]bool{
	"dockerfile": true, "makefile": true, "readme": true, "license": true,
	"changelog": true, "gemfile": true, "procfile": true, "jenkinsfile": true,
	"vagrantfile": true, "rakefile": true, "brewfile": true,
}

// extensionWords name what a file extension says about the file: its language
// or format, so "fix app.ts" meets tools that speak of TypeScript and "show
// logo.png" tools that read images.
var extensionWords = map[string][]string{
	"go": {"go", "code"}, "py": {"python", "code"}, "js": {"javascript", "code"},
	"jsx": {"javascript", "code"}, "ts": {"typescript", "code"}, "tsx": {"typescript", "code"},
	"rb": {"ruby", "code"}, "rs": {"rust", "code"}, "java": {"java", "code"},
	"kt": {"kotlin", "code"}, "swift": {"swift", "code"}, "php": {"php", "code"},
	"c": {"code"}, "h": {"code"}, "cpp": {"code"}, "sh": {"shell", "script"},
	"md": {"markdown", "text"}, "txt": {"text"}, "log": {"log", "text"},
	"yaml": {"yaml", "configuration"}, "yml": {"yaml", "configuration"},
	"toml": {"configuration"}, "ini": {"configuration"}, "conf": {"configuration"},
	"cfg": {"configuration"}, "env": {"environment"},
	"json": {"json"}, "xml": {"xml"}, "html": {"html"}, "css": {"css", "style"},
	"csv": {"csv", "spreadsheet"}, "xlsx": {"spreadsheet"}, "sql": {"sql"},
	"pdf": {"pdf", "document"}, "docx": {"document"},
	"png": {"image", "media"}, "jpg": {"image", "media"}, "jpeg": {"image", "media"},
	"gif": {"image", "media"}, "webp": {"image", "media"}, "svg": {"image"},
	"mp3": {"audio", "media"}, "wav": {"audio", "media"}, "mp4": {"video", "media"},
	"zip": {"archive"}, "gz": {"archive", "gzip"}, "tar": {"archive"},
	"ipynb": {"notebook", "python"},
}

// webTLDs mark a dotted word as a host name.
var webTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true,
	"ai": true, "app": true, "co": true, "uk": true, "de": true, "fr": true,
	"edu": true, "gov": true, "info": true, "me": true,
}

// implicitReadStarts are question words that, in a query without a verb,
// imply reading or listing ("what tables are in this base").
var implicitReadStarts = map[string]bool{
	"what": true, "whats": true, "which": true, "who": true, "where": true,
	"are": true, "is": true, "any": true, "show": true,
}

// metaWords speak about tools rather than what a tool does ("which tool
// accepts a filePattern parameter"): every tool is one and has them, so in a
// query they only match the few tools whose own text says "tool".
var metaWords = map[string]bool{
	"parameter": true, "param": true, "argument": true,
	"arg": true, "accept": true,
}

// lightWords say little by themselves, so they and their synonyms weigh
// lightWordWeight of a word: light verbs, whose meaning is in their object
// ("take the train", "give it more copies", "put it aside"; tools named
// after them, take_screenshot, are still found by the object), adverbs of
// time ("is anything down right now" is not about the time) and words of
// politeness and hedging.
var lightWords = map[string]bool{
	"take": true, "give": true, "put": true, "keep": true, "let": true,
	"bring": true,
	// Adverbs of time say when the request is made, not what about.
	"now": true, "currently": true, "today": true, "yesterday": true,
	// Words of politeness and hedging ("could you help me figure out",
	// "is there a way to").
	"help": true, "wonder": true, "happen": true, "figure": true,
	"way": true, "something": true, "thing": true, "stuff": true,
}

// lightWordWeight is the weight of a light word in a query.
const lightWordWeight = 0.4

// askingPairs are two-word phrases one of whose words asks rather than
// names a subject or an operation ("I'd like to know which indexes…", "find
// out the altitude", "tell me how…"): the value is the asking word's place in
// the pair. An asking word weighs like a light word, is not the query's verb
// and takes no intents of its own.
var askingPairs = map[[2]string]int{
	{"to", "know"}: 1, {"find", "out"}: 0, {"tell", "me"}: 0,
}

// askingPlaces marks the raw words (lower case, in order) that ask.
func askingPlaces(raw []string) []bool {
	at := make([]bool, len(raw))
	for i := 0; i+1 < len(raw); i++ {
		if k, ok := askingPairs[[2]string{token.Singular(raw[i]), token.Singular(raw[i+1])}]; ok {
			at[i+k] = true
		}
	}
	return at
}

// nounPhraseStarts open a request that is a noun phrase, not a command.
var nounPhraseStarts = map[string]bool{
	"the": true, "a": true, "an": true, "all": true, "every": true, "each": true,
	"one": true, "single": true, "just": true, "my": true, "our": true,
}

// listWords ask for many things, getWords for one thing in detail.
var (
	listWords = map[string]bool{"all": true, "every": true, "each": true}
	getWords  = map[string]bool{"one": true, "single": true, "detail": true, "exact": true, "specific": true}
)

// quantifierVerbs returns the verb class the quantity words of a query
// without a verb imply: list for all/every/each, get for one/single/details;
// 0 when it has neither or both.
func quantifierVerbs(raw []string) uint16 {
	var v uint16
	for _, w := range raw {
		switch w = token.Singular(w); {
		case listWords[w]:
			v |= words.VList
		case getWords[w]:
			v |= words.VGet
		}
	}
	if v == words.VList|words.VGet {
		return 0
	}
	return v
}

// fileReadWeight is the weight of "read" in a query that names a file and
// no verb.
const fileReadWeight = 0.6

// questionVerbWeight scales, in a question, derived terms that are verbs of
// a class other than reading.
const questionVerbWeight = 0.3

// questionStarts are words that open a question rather than a command.
var questionStarts = map[string]bool{
	"what": true, "whats": true, "which": true, "who": true, "where": true,
	"when": true, "did": true, "was": true, "were": true, "has": true,
}

// Term is one analysed query term with its weight.
type Term struct {
	Text   string
	Weight float64
	Strong bool   // an original word or an abbreviation of one: can name a server
	Origin uint64 // bits of the original query words the term stands for
}

// lemmaWeight scales the base form of an inflected query word ("crashing" →
// "crash") and what it expands to.
const lemmaWeight = 0.9

// lemma returns the base form of an -ing or -ed verb form w that known
// accepts, or "" ("running" → "run", "changed" → "change", "copied" →
// "copy"). Only query words the index does not know are lemmatised, and only
// into words it knows, so a wrong guess costs nothing.
func lemma(w string, known func(string) bool) string {
	var stems []string
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		b := w[:n-3]
		stems = append(stems, b, b+"e")
		if m := len(b); m > 2 && b[m-1] == b[m-2] {
			stems = append(stems, b[:m-1])
		}
	case n > 4 && strings.HasSuffix(w, "ied"):
		stems = append(stems, w[:n-3]+"y")
	case n > 4 && strings.HasSuffix(w, "ed"):
		b := w[:n-2]
		stems = append(stems, b, w[:n-1])
		if m := len(b); m > 2 && b[m-1] == b[m-2] {
			stems = append(stems, b[:m-1])
		}
	}
	for _, s := range stems {
		if known(s) {
			return s
		}
	}
	return ""
}

// titleCase reports whether w is a capital letter followed by lower-case
// letters only ("York", not "GitHub", "URL" or "york").
func titleCase(w string) bool {
	if len(w) < 2 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// fileExtension returns the lower-case extension of a file-shaped query word,
// or "".
func fileExtension(w string) string {
	w = strings.ToLower(wordEdges.trim(w))
	if dot := strings.LastIndexByte(w, '.'); dot >= 0 && fileExtensions[w[dot+1:]] {
		return w[dot+1:]
	}
	return ""
}

// identShape classifies a query word that names something rather than
// saying what to do: "channel" for #name, "user" for @name, "issue" for a
// tracker's key (ENG-42), "command" for a command-line flag (-la, --force),
// "name" for letters and digits joined by - _ or : (db-1, worker-2,
// config:flags), "" otherwise.
func identShape(w string) string {
	w = identEdges.trim(w)
	if len(w) < 2 {
		return ""
	}
	switch w[0] {
	case '#':
		return "channel"
	case '@':
		return "user"
	}
	if ticketKey(w) {
		return "issue"
	}
	if cliFlag(w) {
		return "command"
	}
	var letter, digit, joint bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c == '-' || c == '_' || c == ':':
			joint = i > 0 && i < len(w)-1
		case token.IsWordRune(rune(c)):
			letter = true
		}
	}
	if joint && letter && (digit || strings.Contains(w, ":")) {
		return "name"
	}
	return ""
}

// cliFlag reports whether w is a command-line flag (-la, --force,
// --dry-run; not -v): a request carrying one is a shell command.
func cliFlag(w string) bool {
	rest := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
	// One dash and one letter (-v) is too often something else.
	if rest == w || len(rest) < 2 || rest[0] < 'a' || rest[0] > 'z' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// ticketKey reports whether w is an issue tracker's key: two to ten capital
// letters, a dash and a number (ENG-42, PROJ-1234).
func ticketKey(w string) bool {
	i := 0
	for i < len(w) && w[i] >= 'A' && w[i] <= 'Z' {
		i++
	}
	if i < 2 || i > 10 || i+1 >= len(w) || w[i] != '-' {
		return false
	}
	for _, c := range w[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Words that values of a recognisable shape stand for.
var (
	coordinateWords = []string{"coordinate", "latitude", "longitude"}
	timeOfDayWords  = []string{"time"}
	dateWords       = []string{"date"}
	versionWords    = []string{"version", "tag", "release"}
)

// valueShape returns the words a value-shaped query word stands for: a
// coordinate (40.7128, -74.0060), a time of day (9am, 14:30), a date
// (2024-05-01) or a version (v1.2, 2.0.1); nil for anything else.
func valueShape(w string) []string {
	w = strings.ToLower(valueEdges.trim(w))
	digitsThen := func(s string, min, max int) (rest string, ok bool) {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		return s[n:], n >= min && n <= max
	}
	// Coordinate: -?d{1,3}.d{3,}
	if rest, ok := digitsThen(strings.TrimPrefix(w, "-"), 1, 3); ok && strings.HasPrefix(rest, ".") {
		if tail, ok := digitsThen(rest[1:], 3, 20); ok && tail == "" {
			return coordinateWords
		}
	}
	// Time of day: d{1,2}(:dd)?(am|pm) or d{1,2}:dd.
	if rest, ok := digitsThen(w, 1, 2); ok {
		minutes := false
		if strings.HasPrefix(rest, ":") {
			var ok2 bool
			if rest, ok2 = digitsThen(rest[1:], 2, 2); !ok2 {
				return nil
			}
			minutes = true
		}
		if rest == "am" || rest == "pm" || rest == "" && minutes {
			return timeOfDayWords
		}
	}
	// Date: dddd-dd-dd.
	if rest, ok := digitsThen(w, 4, 4); ok && strings.HasPrefix(rest, "-") {
		if rest, ok = digitsThen(rest[1:], 1, 2); ok && strings.HasPrefix(rest, "-") {
			if rest, ok = digitsThen(rest[1:], 1, 2); ok && rest == "" {
				return dateWords
			}
		}
	}
	// Version: v followed by d(.d)+, or d.d.d(.d)*.
	v, prefixed := strings.CutPrefix(w, "v")
	if dots := strings.Count(v, "."); dots >= 1 && (prefixed || dots >= 2) {
		for p := range strings.SplitSeq(v, ".") {
			if rest, ok := digitsThen(p, 1, 6); !ok || rest != "" {
				return nil
			}
		}
		return versionWords
	}
	return nil
}

// wordShape classifies a white-space separated query word.
func wordShape(w string) string {
	w = wordEdges.trim(w)
	lw := strings.ToLower(w)
	if strings.Contains(lw, "://") || strings.HasPrefix(lw, "www.") {
		return "url"
	}
	if w != lw && wellKnownFiles[lw] {
		// Written with capitals (Dockerfile, README): the file, not the word.
		return "file"
	}
	dot := strings.LastIndexByte(lw, '.')
	if dot < 0 || dot == len(lw)-1 {
		return ""
	}
	ext := lw[dot+1:]
	switch {
	case fileExtensions[ext]:
		return "file"
	case webTLDs[ext] && dot > 0:
		return "url"
	}
	return ""
}

// Analyser is the working memory of one query analysis at a time, kept by
// the index's scratch pool so that a search reuses its maps and slices
// instead of allocating them anew; Analyse resets it first. The zero value
// is ready for use.
type Analyser struct {
	weights             map[string]Term
	origWeight          map[string]float64
	lemmaOf             map[string]string
	firstAt, rawAt      map[string]int // first position of a term in orig, of a word in raw
	orig, raw, sing     []string
	rawWeight           []float64
	rawBits             []uint64
	key, joined, folded []byte
	word                []byte // token.ForEachWord's buffer
	terms               []Term
	// idf is the index's idf by term id, as given to Analyse; nil takes
	// every thesaurus word the vocabulary has.
	idf []float64
	// lead is the word that opens the request as its verb though it is no
	// verb the ranker knows ("comment on the issue"), set by Analyse.
	lead string
}

// Analyse returns the weighted terms of q, sorted by term so that score
// sums are computed in a fixed order, and the verb classes q uses. vocab is
// the index vocabulary (term → id), used to join and split compound words,
// and idf the index's idf by term id (nil: every thesaurus word the
// vocabulary has is usable). The terms live in s until its next use.
func (s *Analyser) Analyse(q string, vocab map[string]int32, idf []float64) ([]Term, uint16) {
	s.idf = idf
	if s.weights == nil {
		s.weights, s.origWeight, s.lemmaOf = map[string]Term{}, map[string]float64{}, map[string]string{}
		s.firstAt, s.rawAt = map[string]int{}, map[string]int{}
		s.word = make([]byte, 0, 64)
	}
	q = token.Normalized(q)
	clear(s.weights)
	clear(s.origWeight)
	clear(s.firstAt)
	clear(s.rawAt)
	clear(s.lemmaOf)
	tb := lexiconTables()
	weights := s.weights
	var origin uint64 // bits of the term being expanded, set before each put
	put := func(t string, w float64, strong bool) {
		cur, ok := weights[t]
		if !ok || w > cur.Weight {
			cur.Text, cur.Weight = t, w
		}
		cur.Strong = cur.Strong || strong
		cur.Origin |= origin
		weights[t] = cur
	}
	inVocab := func(t string) bool { _, ok := vocab[t]; return ok }

	// known reports whether a word means something to the index: it is
	// indexed or has synonyms or intents.
	known := func(t string) bool { return inVocab(t) || tb.expansions[t] != nil || tb.intents[t] != nil }
	lemmaOf := s.lemmaOf         // unknown inflected original term → known base form
	orig := s.orig[:0]           // original terms, in order
	raw := s.raw[:0]             // raw lower-case words in order, stop words included
	rawWeight := s.rawWeight[:0] // weight of each raw word's chunk
	origWeight := s.origWeight   // original term → its highest weight
	var verbs uint16
	// bitOf is the coverage bit of an original term: its first position
	// (looked up, not searched for: a long request in a script read as
	// bigrams has thousands of distinct terms).
	firstAt := s.firstAt
	bitOf := func(t string) uint64 {
		if i, ok := firstAt[t]; ok {
			return 1 << min(i, 63)
		}
		return 0
	}
	var names map[string]bool // original terms seen only as capitalised words after the first
	namesFile := false
	ci := -1 // index of chunk among the query's white-space separated words
	for chunk := range strings.FieldsSeq(q) {
		ci++
		shape := wordShape(chunk)
		namesFile = namesFile || shape == "file"
		weight, strong := 1.0, true
		if shape != "" {
			weight, strong = shapedWordWeight, false
			origin = 0
			put(shape, shapeWeight, false)
			if shape == "file" {
				for _, t := range extensionWords[fileExtension(chunk)] {
					put(t, shapeWeight, false)
				}
			}
		} else if id := identShape(chunk); id != "" {
			// A name such as db-1, #ops or @maria: what it is says more
			// than the words inside it.
			weight, strong = shapedWordWeight, false
			origin = 0
			if id != "name" {
				put(id, shapeWeight, false)
			}
		} else if means := valueShape(chunk); means != nil {
			// A value (40.7128, 9am, 2024-05-01, v1.2.0) says what kind
			// of thing the request is about.
			weight, strong = shapedWordWeight, false
			origin = 0
			for _, t := range means {
				put(t, shapeWeight, false)
			}
		}
		for run := range strings.FieldsFuncSeq(chunk, func(r rune) bool { return !token.IsWordRune(r) }) {
			var parts []string
			// The query is NFKC already (analyse): its runs need not be checked again.
			token.EachWord(run, s.word, true, func(w []byte, whole bool) {
				if !whole {
					raw = append(raw, string(w))
					rawWeight = append(rawWeight, weight)
				}
				t := string(token.SingularBytes(w))
				switch {
				case token.IsStop(t), metaWords[t]:
				case !whole:
					parts = append(parts, t)
				case inVocab(t):
					// A camelCase word the index knows whole ("GitHub"):
					// search for it rather than its parts.
					parts = []string{t}
				}
			})
			for _, p := range parts {
				if ci > 0 && titleCase(run) {
					if _, seen := origWeight[p]; !seen {
						if names == nil {
							names = map[string]bool{}
						}
						names[p] = true
					}
				} else {
					delete(names, p)
				}
				if _, ok := firstAt[p]; !ok {
					firstAt[p] = len(orig)
				}
				orig = append(orig, p)
				w := weight
				if lightWords[p] {
					w *= lightWordWeight
				}
				origWeight[p] = max(origWeight[p], w)
				origin = bitOf(p)
				put(p, w, strong)
				if known(p) {
					continue
				}
				if l := lemma(p, known); l != "" {
					lemmaOf[p] = l
					put(l, w*lemmaWeight, strong)
				}
			}
		}
	}
	// Words that ask (see askingPairs) weigh like light words.
	askingAt := askingPlaces(raw)
	var asking map[string]bool
	for i, a := range askingAt {
		if t := token.Singular(raw[i]); a && !lightWords[t] && !asking[t] {
			if asking == nil {
				asking = map[string]bool{}
			}
			asking[t] = true
			origWeight[t] *= lightWordWeight
			if qt, ok := weights[t]; ok {
				qt.Weight *= lightWordWeight
				weights[t] = qt
			}
		}
	}
	// rawAt is the first position of each raw word.
	rawAt := s.rawAt
	for i := len(raw) - 1; i >= 0; i-- {
		rawAt[raw[i]] = i
	}
	// The first verb is the main verb of an imperative task; a phrasal use
	// ("open a PR") is replaced by the verb tools use for it.
	for i, t := range orig {
		if names[t] {
			// "New York", "Main Street": a capitalised word inside a
			// sentence names something; it is not the verb.
			continue
		}
		if asking[t] {
			continue
		}
		if j, ok := rawAt[t]; ok && j > 0 && nounPhraseStarts[raw[j-1]] {
			// "every open pull request", "the open issues": after a
			// determiner the word describes a thing; it is not the verb.
			continue
		}
		if l, ok := lemmaOf[t]; ok {
			t = l
		}
		v := words.VerbClass(t)
		if v == 0 {
			// A past form the index knows as a word ("added", "deleted")
			// is still that verb; -ing forms are left alone, as they are
			// often nouns ("settings", "listing").
			if strings.HasSuffix(t, "ed") {
				if l := lemma(t, func(s string) bool { return words.VerbClass(s) != 0 }); l != "" {
					v = words.VerbClass(l)
				}
			}
		}
		if v == 0 {
			// An everyday verb ("remember", "forget") takes the class of the
			// first tool verb it stands for.
			for _, to := range tb.intents[t] {
				if v = words.VerbClass(to); v != 0 {
					break
				}
			}
		}
		if v == 0 {
			// Or the class of its first general-English synonym that has
			// one ("halt", "end" → stop).
			v = thesaurusVerbClass(t)
		}
		if objects, means, ok := words.PhrasalVerb(t); ok && (v != 0 || i == 0) {
			for _, o := range orig[i+1:] {
				if slices.Contains(objects, o) {
					put(means, words.AbbrevWeight, true)
					v = words.VerbClass(means)
					break
				}
			}
		}
		if v != 0 {
			verbs = v
			break
		}
	}
	s.lead = denominalLead(raw, names, func(t string) bool {
		if l, ok := lemmaOf[t]; ok {
			t = l
		}
		if words.VerbClass(t) != 0 {
			return true
		}
		for _, to := range tb.intents[t] {
			if words.VerbClass(to) != 0 {
				return true
			}
		}
		// A verb WordNet already gave a class (halt → stop) keeps it.
		return thesaurusVerbClass(t) != 0
	})
	origin = 0
	question := len(raw) > 0 && questionStarts[raw[0]]
	if question {
		// A question asks to see something, whatever verb it mentions
		// ("what do you remember", "which files did I change").
		verbs = words.VGet | words.VList | words.VSearch
	} else if verbs == 0 && len(raw) > 0 && implicitReadStarts[raw[0]] {
		verbs = words.VGet | words.VList
	} else if v := quantifierVerbs(raw); verbs == 0 && v != 0 && nounPhraseStarts[raw[0]] {
		// "every open pull request", "the details of one label": a noun
		// phrase with no verb; how many things it asks for says list or
		// get.
		verbs = v
	} else if verbs == 0 && namesFile {
		// A file named with nothing to do to it ("the Dockerfile",
		// "go.mod") is to be read.
		verbs = words.VGet
		origin = 0
		put("read", fileReadWeight, false)
	}

	// Everyday words and phrases, and the tool words they stand for.
	rawBits := slices.Grow(s.rawBits[:0], len(raw))[:len(raw)] // coverage bit of each raw word's singular
	sing := slices.Grow(s.sing[:0], len(raw))[:len(raw)]
	for i, w := range raw {
		sing[i] = token.Singular(w)
		rawBits[i] = bitOf(sing[i])
		if l, ok := lemmaOf[sing[i]]; ok {
			sing[i] = l
		}
	}
	key := s.key // a lookup by string(key) does not allocate
	for i := range sing {
		// An asking word's own intents are skipped; its phrases count.
		asking := askingAt[i]
		key = key[:0]
		var bits uint64
		w := 1.0
		for j := i; j < len(sing) && j < i+maxIntentWords; j++ {
			if j > i {
				key = append(key, ' ')
			}
			key = append(key, sing[j]...)
			bits |= rawBits[j]
			w = min(w, rawWeight[j])
			origin = bits
			if asking && j == i {
				continue
			}
			for _, to := range tb.intents[string(key)] {
				put(to, intentWeight*w, false)
			}
		}
	}
	// Adjacent words that the index knows as one word.
	joined, folded := s.joined, s.folded
	for i := range raw {
		joined = append(joined[:0], raw[i]...)
		for j := i + 1; j < len(raw) && j <= i+2; j++ {
			joined = append(joined, raw[j]...)
			t := token.SingularBytes(append(folded[:0], joined...))
			folded = t[:0]
			if len(t) >= minJoinLen && !token.IsStopBytes(t) && inVocab(string(t)) {
				origin = 0
				for _, b := range rawBits[i : j+1] {
					origin |= b
				}
				put(string(t), joinWeight, true)
			}
		}
	}
	// Unknown words that split into two known words.
	for _, t := range orig {
		if inVocab(t) || len(t) < 2*minSplitPart {
			continue
		}
		origin = bitOf(t)
		for cut := len(t) - minSplitPart; cut >= minSplitPart; cut-- {
			a, b := t[:cut], token.Singular(t[cut:])
			if !token.IsStop(a) && !token.IsStop(b) && inVocab(a) && inVocab(b) {
				put(a, splitWeight, false)
				put(b, splitWeight, false)
				break
			}
		}
	}
	// Synonyms and abbreviations of the original words.
	for _, t := range orig {
		origin = bitOf(t)
		// A word inside a file name or identifier expands as weakly as it
		// counts itself: "config.yaml" is a file, not a configuration tool.
		ow := origWeight[t]
		if names[t] {
			// A name ("New York") does not stand for its synonyms.
			ow *= shapedWordWeight
		}
		for _, e := range tb.expansions[t] {
			put(e.Term, e.Weight*ow, e.Strong && ow == 1)
		}
		if l, ok := lemmaOf[t]; ok {
			for _, e := range tb.expansions[l] {
				put(e.Term, e.Weight*lemmaWeight*ow, e.Strong && ow == 1)
			}
		}
	}

	// General-English synonyms of the words the lexicon says nothing about
	// (thesaurus.go).
	for _, t := range orig {
		l, lemmatised := lemmaOf[t]
		if lightWords[t] || names[t] || asking[t] || tb.expansions[t] != nil || tb.intents[t] != nil ||
			lemmatised && (tb.expansions[l] != nil || tb.intents[l] != nil) {
			continue
		}
		origin = bitOf(t)
		w := origWeight[t]
		usable := inVocab
		if inVocab(t) {
			w *= thesaurusKnownScale
			usable = func(v string) bool {
				id, ok := vocab[v]
				return ok && (s.idf == nil || s.idf[id] >= thesaurusKnownMinIDF)
			}
		}
		if lemmatised {
			t, w = l, w*lemmaWeight
		}
		thesaurusTerms(t, w, usable, func(term string, weight float64) { put(term, weight, false) })
	}

	s.orig, s.raw, s.rawWeight, s.rawBits, s.sing = orig, raw, rawWeight, rawBits, sing
	s.key, s.joined, s.folded = key, joined, folded
	terms := s.terms[:0]
	for _, qt := range weights {
		if question && !qt.Strong {
			// The operations an everyday word stands for ("remember" →
			// create, add) are not what a question about it asks for.
			if v := words.VerbClass(qt.Text); v != 0 && v&verbs == 0 {
				qt.Weight *= questionVerbWeight
			}
		}
		terms = append(terms, qt)
	}
	slices.SortFunc(terms, func(a, b Term) int { return strings.Compare(a.Text, b.Text) })
	s.terms = terms
	return terms, verbs
}

// Lead is the word that opened the last analysed request as its verb though
// it is no verb the ranker knows ("comment on the issue", "label the PR"),
// or "": the index says what it means, from the verbs its tool names pair
// the word with.
func (s *Analyser) Lead() string { return s.lead }
