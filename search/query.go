package search

import (
	"slices"
	"sort"
	"strings"
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

// questionVerbWeight scales, in a question, derived terms that are verbs of
// a class other than reading.
const questionVerbWeight = 0.3

// questionStarts are words that open a question rather than a command.
var questionStarts = map[string]bool{
	"what": true, "whats": true, "which": true, "who": true, "where": true,
	"when": true, "did": true, "was": true, "were": true, "has": true,
}

// queryTerm is one analysed query term with its weight.
type queryTerm struct {
	term   string
	weight float64
	strong bool   // an original word or an abbreviation of one: can name a server
	origin uint64 // bits of the original query words the term stands for
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

// fileExtension returns the lower-case extension of a file-shaped query word,
// or "".
func fileExtension(w string) string {
	w = strings.ToLower(strings.Trim(w, "\"'`()[]{}<>,;:!?"))
	if dot := strings.LastIndexByte(w, '.'); dot >= 0 && fileExtensions[w[dot+1:]] {
		return w[dot+1:]
	}
	return ""
}

// identShape classifies a query word that names something rather than
// saying what to do: "channel" for #name, "user" for @name, "name" for
// letters and digits joined by - _ or : (db-1, worker-2, config:flags), ""
// otherwise.
func identShape(w string) string {
	w = strings.Trim(w, "\"'`()[]{}<>,;!?.")
	if len(w) < 2 {
		return ""
	}
	switch w[0] {
	case '#':
		return "channel"
	case '@':
		return "user"
	}
	var letter, digit, joint bool
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c == '-' || c == '_' || c == ':':
			joint = i > 0 && i < len(w)-1
		case isLetterOrDigit(rune(c)):
			letter = true
		}
	}
	if joint && letter && (digit || strings.Contains(w, ":")) {
		return "name"
	}
	return ""
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
	w = strings.ToLower(strings.Trim(w, "\"'`()[]{}<>,;!?"))
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
	parts := strings.Split(v, ".")
	if len(parts) >= 2 && (prefixed || len(parts) >= 3) {
		for _, p := range parts {
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
	w = strings.Trim(w, "\"'`()[]{}<>,;:!?")
	lw := strings.ToLower(w)
	if strings.Contains(lw, "://") || strings.HasPrefix(lw, "www.") {
		return "url"
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

// analyseQuery returns the weighted terms of q, sorted by term so that score
// sums are computed in a fixed order, and the verb classes q uses. vocab is
// the index vocabulary, used to join and split compound words.
func analyseQuery(q string, vocab map[string]int32) ([]queryTerm, uint16) {
	weights := map[string]queryTerm{}
	var origin uint64 // bits of the term being expanded, set before each put
	put := func(t string, w float64, strong bool) {
		cur, ok := weights[t]
		if !ok || w > cur.weight {
			cur.term, cur.weight = t, w
		}
		cur.strong = cur.strong || strong
		cur.origin |= origin
		weights[t] = cur
	}
	inVocab := func(t string) bool { _, ok := vocab[t]; return ok }

	// known reports whether a word means something to the index: it is
	// indexed or has synonyms or intents.
	known := func(t string) bool { return inVocab(t) || expansions[t] != nil || intentTable[t] != nil }
	lemmaOf := map[string]string{}     // unknown inflected original term → known base form
	var orig []string                  // original terms, in order
	var raw []string                   // raw lower-case words in order, stop words included
	var rawWeight []float64            // weight of each raw word's chunk
	origWeight := map[string]float64{} // original term → its highest weight
	var verbs uint16
	// bitOf is the coverage bit of an original term: its first position.
	bitOf := func(t string) uint64 {
		for i, o := range orig {
			if o == t {
				return 1 << min(i, 63)
			}
		}
		return 0
	}
	for _, chunk := range strings.Fields(q) {
		shape := wordShape(chunk)
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
		for _, run := range strings.FieldsFunc(chunk, func(r rune) bool { return !isLetterOrDigit(r) }) {
			var parts []string
			forEachWord(run, nil, func(w []byte, whole bool) {
				if !whole {
					raw = append(raw, string(w))
					rawWeight = append(rawWeight, weight)
				}
				t := string(singularBytes(w))
				switch {
				case stopWords[t], metaWords[t]:
				case !whole:
					parts = append(parts, t)
				case inVocab(t):
					// A camelCase word the index knows whole ("GitHub"):
					// search for it rather than its parts.
					parts = []string{t}
				}
			})
			for _, p := range parts {
				orig = append(orig, p)
				origWeight[p] = max(origWeight[p], weight)
				origin = bitOf(p)
				put(p, weight, strong)
				if known(p) {
					continue
				}
				if l := lemma(p, known); l != "" {
					lemmaOf[p] = l
					put(l, weight*lemmaWeight, strong)
				}
			}
		}
	}
	// The first verb is the main verb of an imperative task; a phrasal use
	// ("open a PR") is replaced by the verb tools use for it.
	for i, t := range orig {
		if l, ok := lemmaOf[t]; ok {
			t = l
		}
		v := verbClasses[t]
		if v == 0 {
			// An everyday verb ("remember", "forget") takes the class of the
			// first tool verb it stands for.
			for _, to := range intentTable[t] {
				if v = verbClasses[to]; v != 0 {
					break
				}
			}
		}
		if p, ok := phrasalVerbs[t]; ok && (v != 0 || i == 0) {
			for _, o := range orig[i+1:] {
				if slices.Contains(p.objects, o) {
					put(p.means, abbrevWeight, true)
					v = verbClasses[p.means]
					break
				}
			}
		}
		if v != 0 {
			verbs = v
			break
		}
	}
	origin = 0
	question := len(raw) > 0 && questionStarts[raw[0]]
	if question {
		// A question asks to see something, whatever verb it mentions
		// ("what do you remember", "which files did I change").
		verbs = vGet | vList | vSearch
	} else if verbs == 0 && len(raw) > 0 && implicitReadStarts[raw[0]] {
		verbs = vGet | vList
	}

	// Everyday words and phrases, and the tool words they stand for.
	sing := make([]string, len(raw))
	for i, w := range raw {
		sing[i] = singular(w)
		if l, ok := lemmaOf[sing[i]]; ok {
			sing[i] = l
		}
	}
	for i := range sing {
		key := ""
		var bits uint64
		w := 1.0
		for j := i; j < len(sing) && j < i+maxIntentWords; j++ {
			if j > i {
				key += " "
			}
			key += sing[j]
			bits |= bitOf(singular(raw[j]))
			w = min(w, rawWeight[j])
			origin = bits
			for _, to := range intentTable[key] {
				put(to, intentWeight*w, false)
			}
		}
	}
	// Adjacent words that the index knows as one word.
	for i := range raw {
		joined := raw[i]
		for j := i + 1; j < len(raw) && j <= i+2; j++ {
			joined += raw[j]
			t := singular(joined)
			if len(t) >= minJoinLen && !stopWords[t] && inVocab(t) {
				origin = 0
				for _, w := range raw[i : j+1] {
					origin |= bitOf(singular(w))
				}
				put(t, joinWeight, true)
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
			a, b := t[:cut], singular(t[cut:])
			if !stopWords[a] && !stopWords[b] && inVocab(a) && inVocab(b) {
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
		for _, e := range expansions[t] {
			put(e.term, e.weight*ow, e.strong && ow == 1)
		}
		if l, ok := lemmaOf[t]; ok {
			for _, e := range expansions[l] {
				put(e.term, e.weight*lemmaWeight*ow, e.strong && ow == 1)
			}
		}
	}

	terms := make([]queryTerm, 0, len(weights))
	for _, qt := range weights {
		if question && !qt.strong {
			// The operations an everyday word stands for ("remember" →
			// create, add) are not what a question about it asks for.
			if v := verbClasses[qt.term]; v != 0 && v&verbs == 0 {
				qt.weight *= questionVerbWeight
			}
		}
		terms = append(terms, qt)
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].term < terms[j].term })
	return terms, verbs
}
