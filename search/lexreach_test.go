package search_test

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/search"
	"github.com/zot-mcp/mcp-bridge/search/lexicon"
	"github.com/zot-mcp/mcp-bridge/search/query"
	"github.com/zot-mcp/mcp-bridge/search/token"
)

// lexiconReachFloors is, for each language a request may be written in, the
// least share of the English-described tools' shared words (englishWords)
// that some word of that language in the bilingual lexicon stands for, so
// that a request written in it can meet those tools' words. Each floor sits
// some way below what the lexicon reaches: narrowing a sense found wrong, or
// a catalog adding tools with words of their own, must not trip it, while
// losing a block of a language's entries does. Raise them when entries are
// added. Every floor is above what the lexicon reached before the entries
// for this direction were written.
var lexiconReachFloors = map[string]float64{
	"zh": 0.80, "ja": 0.65, "ko": 0.47, "ru": 0.47, "de": 0.45, "es": 0.47, "fr": 0.31,
}

// englishShareTools is how many tools' names or descriptions a word must be
// in to count as one the English-described tools share, and
// englishNameTools how many tools' names: a word that names tools says what
// they do, while one found only in descriptions is mostly how they are
// described (when, always, returned).
const (
	englishShareTools = 8
	englishNameTools  = 2
)

// descriptionWords are English words of how a tool is described rather
// than of what it does (returns, optional, specified, ...) that also occur
// in tool names, and abbreviations and product names every language types
// as English does (URL, JSON, SQL, WordPress): no request needs a lexicon
// entry for them, so they are not counted.
var descriptionWords = map[string]bool{
	"return": true, "optional": true, "specified": true, "specific": true, "using": true,
	"parameter": true, "param": true, "value": true, "tool": true, "api": true, "apis": true,
	"mcp": true, "all": true, "get": true, "info": true, "detail": true, "data": true,
	"item": true, "multiple": true, "new": true, "current": true, "existing": true,
	"single": true, "doe": true, "com": true, "http": true, "https": true, "www": true,
	"false": true, "true": true, "set": true, "take": true, "put": true, "off": true,
	"many": true, "long": true, "reach": true, "press": true, "word": true, "generated": true,
	"installed": true, "sent": true, "received": true, "allowed": true, "attached": true,
	"visible": true, "shared": true, "working": true, "matching": true, "reserved": true,
	"protected": true, "dedicated": true, "incoming": true, "outgoing": true, "breaking": true,
	"statuse": true, "url": true, "json": true, "doc": true, "html": true, "css": true,
	"sql": true, "csv": true, "pdf": true, "php": true, "dns": true, "cdn": true, "vpc": true,
	"ssl": true, "sftp": true, "docx": true, "env": true, "var": true, "dir": true,
	"config": true, "eval": true, "spec": true, "git": true, "github": true, "genai": true,
	"kubectl": true, "docr": true, "dok": true, "mep": true, "wwdc": true, "wordpress": true,
	"tailwind": true, "excel": true, "uptimecheck": true, "workitem": true, "droplet": true,
	"agency": true, "ecommerce": true, "whois": true, "markdown": true,
}

// englishWord is one word of the English-described tools' names and
// descriptions.
type englishWord struct {
	word  string
	tools int
}

// englishWords returns the words (as the index reads them: lower case,
// plural folded, stop words dropped, a name's parts split) of the names and
// descriptions of the tools described in Latin script, each with the number
// of tools it occurs in, keeping those in at least englishShareTools tools
// that are no descriptionWords.
func englishWords(docs []search.Doc) []englishWord {
	tools, named, own := map[string]int{}, map[string]int{}, map[string]int{}
	for _, doc := range docs {
		if mainScript([]string{doc.Description}) != "latin" {
			continue
		}
		seen := map[string]bool{}
		for _, w := range textWords(doc.Tool) {
			if !seen[w] {
				named[w]++
			}
			seen[w] = true
		}
		for _, w := range textWords(doc.Description) {
			seen[w] = true
		}
		server := textWords(doc.Server)
		for w := range seen {
			tools[w]++
			if slices.Contains(server, w) {
				own[w]++
			}
		}
	}
	var out []englishWord
	for w, n := range tools {
		// A word most of whose tools are a server named by it is that
		// product's name (GitLab, DigitalOcean), typed as it is.
		product := 2*own[w] > n
		if n >= englishShareTools && named[w] >= englishNameTools && !product && !descriptionWords[w] {
			out = append(out, englishWord{w, n})
		}
	}
	slices.SortFunc(out, func(a, b englishWord) int { return cmp.Or(b.tools-a.tools, strings.Compare(a.word, b.word)) })
	return out
}

// textWords returns the plain words of s as the index reads them (lower
// case, plural folded, no stop words), a name cut into its parts.
func textWords(s string) []string {
	var out []string
	token.ForEachToken(s, nil, func(b []byte, whole bool) {
		// A name split by case comes part by part, then whole: the parts
		// are its words.
		if w := string(b); !whole && plainWord(w) {
			out = append(out, w)
		}
	})
	return out
}

// plainWord reports whether w is a word of three ASCII letters or more.
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// lexiconSection names the languages of the sections of
// lexicon/bilingual.go by the first word of their heading comment.
var lexiconSection = map[string]string{
	"Chinese": "zh", "Japanese": "ja", "Korean": "ko", "Russian": "ru", "German": "de",
	"Spanish": "es", "French": "fr", "Portuguese": "pt", "Italian": "it",
}

var (
	sectionHeading = regexp.MustCompile(`^\s*// ---- (\w+)`)
	lexiconKey     = regexp.MustCompile(`^\s*"([^"]+)":\s*\{`)
)

// lexiconLanguages reads which language each key of lexicon.Bilingual is
// written in from the section of lexicon/bilingual.go it sits in: the table
// is one map, but its source keeps each language's words under a heading.
func lexiconLanguages(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("lexicon", "bilingual.go"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	langOf := map[string]string{}
	lang, in := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "func bilingual()"):
			in = true
		case in && line == "}":
			in = false
		case !in:
		case sectionHeading.MatchString(line):
			name := sectionHeading.FindStringSubmatch(line)[1]
			if lang = lexiconSection[name]; lang == "" {
				t.Fatalf("lexicon/bilingual.go has a section %q this test does not know", name)
			}
		case lexiconKey.MatchString(line):
			langOf[lexiconKey.FindStringSubmatch(line)[1]] = lang
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return langOf
}

// reachedWords returns, for each language, the English words (plural
// folded, as the index reads them) some key of that language stands for
// when a request says the key alone: a sense the analyser does not give
// for its key (the key is read as an English word, a cognate or another
// key) is not counted.
func reachedWords(t *testing.T) map[string]map[string]bool {
	t.Helper()
	langOf := lexiconLanguages(t)
	table := lexicon.Bilingual()
	reached := map[string]map[string]bool{}
	var an query.Analyser
	for key, senses := range table {
		lang, ok := langOf[key]
		if !ok || lang == "" {
			t.Fatalf("key %q of the bilingual lexicon is under no language heading of lexicon/bilingual.go", key)
		}
		if reached[lang] == nil {
			reached[lang] = map[string]bool{}
		}
		for _, s := range said(&an, key, senses) {
			reached[lang][s] = true
		}
	}
	// Japanese writes many words in the same characters as Chinese (内容,
	// 生成), and the analyser does not ask which section a key came from: a
	// Chinese key counts for Japanese too when each of its characters is
	// one a Japanese key is written with.
	jaChars := map[rune]bool{}
	for key, lang := range langOf {
		if lang == "ja" {
			for _, r := range key {
				jaChars[r] = true
			}
		}
	}
	for key, lang := range langOf {
		if lang != "zh" || strings.ContainsFunc(key, func(r rune) bool { return !jaChars[r] }) {
			continue
		}
		for _, s := range said(&an, key, table[key]) {
			reached["ja"][s] = true
		}
	}
	if len(langOf) != len(table) {
		t.Fatalf("read %d keys from lexicon/bilingual.go, the table has %d: the reading of the file is out of step", len(langOf), len(table))
	}
	return reached
}

// said returns the senses of the lexicon key that a request saying the key
// alone is analysed into, plural folded.
func said(an *query.Analyser, key string, senses []string) []string {
	terms, _ := an.Analyse(strings.ReplaceAll(key, "*", ""), nil, nil)
	got := map[string]bool{}
	for _, tm := range terms {
		got[token.Singular(strings.ToLower(tm.Text))] = true
	}
	var out []string
	for _, s := range senses {
		if s = token.Singular(strings.ToLower(s)); got[s] {
			out = append(out, s)
		}
	}
	return out
}

// TestLexiconReachesEnglishToolWords: for each language of lexiconReachFloors,
// at least its floor of the words the English-described tools of both
// catalogs share (englishWords) are the sense of some word of that language
// in the bilingual lexicon, so that a request written in it can meet them.
// With -v it lists, per language, the words none of its keys reaches, most
// widespread first: the list to write new entries from (everyday words a
// speaker would type, never a tool's name).
//
// A word counts as reached when a request saying a key alone is analysed
// into it: the count is of senses written and given, not of what requests
// mean. A key that a longer key of a longer run outweighs there still
// counts, and a sense counts whether or not it is the one tools mean by it
// (a broader sense raises the share), so the share is no measure of
// quality: the guards and the tuning half are.
//
// The share counts lexicon keys only. A German, Spanish or French word
// spelled as the English one (Server, Token, Dashboard) or read as its
// cognate by its ending (Aktivität, categoría: query's readCognate) meets
// the tool's word with no key, so those languages' shares understate what
// a request reaches, and such words need no entry; the floors are set on
// the shares as counted here.
func TestLexiconReachesEnglishToolWords(t *testing.T) {
	t.Parallel()
	_, _, union := unionCatalogs(t)
	words := englishWords(union.docs)
	if len(words) < 300 {
		t.Fatalf("only %d shared words in the English-described tools: the catalogs or their reading changed", len(words))
	}
	reached := reachedWords(t)
	langs := make([]string, 0, len(lexiconReachFloors))
	for l := range lexiconReachFloors {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	for _, lang := range langs {
		var missing strings.Builder
		n := 0
		for _, w := range words {
			if reached[lang][w.word] {
				n++
				continue
			}
			fmt.Fprintf(&missing, " %s(%d)", w.word, w.tools)
		}
		share := float64(n) / float64(len(words))
		t.Logf("%s: %d of %d shared words reached (%.3f); not reached (tools):%s", lang, n, len(words), share, missing.String())
		if share < lexiconReachFloors[lang] {
			t.Errorf("%s: the bilingual lexicon reaches %.3f of the English-described tools' shared words, want at least %.2f; the words not reached are listed above", lang, share, lexiconReachFloors[lang])
		}
	}
}
