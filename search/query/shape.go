package query

import (
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
	"arg": true,
}

// toolTalkWords are words that speak about tools only in a request that
// speaks about tools (one with a meta word or "tool"): "which tool accepts
// a path" asks for a tool's input, "accept a pending invitation" asks for
// an action.
var toolTalkWords = map[string]bool{"accept": true}

// speaksOfTools reports whether q names tools or their inputs; buf is
// token.ForEachToken's buffer.
func speaksOfTools(q string, buf []byte) bool {
	if !mayHaveToolTalk(q) {
		return false // no tool-talk word to read otherwise: skip the pass
	}
	found := false
	token.ForEachToken(q, buf, func(w []byte, _ bool) {
		t := token.SingularBytes(w)
		found = found || metaWords[string(t)] || string(t) == "tool"
	})
	return found
}

// mayHaveToolTalk reports whether q holds a tool-talk word in any case,
// perhaps inside a longer word ("accepts"): a cheap test before the token
// pass.
func mayHaveToolTalk(q string) bool {
	for w := range toolTalkWords {
		if containsFoldASCII(q, w) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s holds the lower-case ASCII word w,
// ignoring the case of ASCII letters.
func containsFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
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
