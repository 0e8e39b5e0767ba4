// Package token splits text into the words the search index and its queries share.
//
// It splits at separators and camelCase, reads scripts other than Latin (NFKC, CJK
// bigrams, Greek and Cyrillic folding, script.go), folds English plurals and drops stop
// words.
package token

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsStop reports whether w (lower case, singular) is a stop word.
func IsStop(w string) bool { return stopWords[w] }

// IsStopBytes is IsStop for a word held in bytes; it does not allocate.
func IsStopBytes(w []byte) bool { return stopWords[string(w)] }

// stopWords are dropped from documents and queries alike. The list is kept
// small on purpose: words such as "all", "new", "show" or "open" carry
// meaning in tool names and stay indexed.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "in": true,
	"on": true, "for": true, "with": true, "and": true, "or": true, "by": true,
	"as": true, "at": true, "be": true, "is": true, "are": true, "was": true,
	"it": true, "its": true, "this": true, "that": true, "these": true,
	"those": true, "from": true, "into": true, "onto": true, "me": true,
	"my": true, "i": true, "you": true, "your": true, "we": true, "our": true,
	"us": true, "can": true, "could": true, "should": true, "would": true,
	"will": true, "do": true, "does": true, "did": true, "please": true,
	"what": true, "which": true, "how": true, "there": true, "here": true, "so": true,
	"if": true, "then": true, "than": true, "some": true, "any": true,
	"use": true, "using": true, "used": true, "via": true, "let": true,
	"want": true, "need": true, "have": true, "has": true, "had": true,
	"been": true, "being": true, "s": true, "t": true, "m": true, "d": true,
	"ll": true, "re": true, "ve": true, "am": true, "not": true, "no": true,
	"only": true, "also": true, "just": true, "whether": true, "such": true,
	"e": true, "g": true, "eg": true, "ie": true, "etc": true,
	"mcp": true, "call": true, "one": true, "about": true, "called": true,
}

// pluralKeep lists words that end in "s" but are not plurals (or whose
// naive Singular would collide with an unrelated word).
var pluralKeep = map[string]bool{
	"news": true, "always": true, "perhaps": true, "series": true,
	"species": true, "canvas": true, "alias": true, "atlas": true,
	"https": true, "status": true, "analysis": true, "redis": true,
	"kubernetes": true, "macos": true, "ios": true, "watchos": true,
	"tvos": true, "visionos": true, "yes": true, "less": true,
	"unless": true, "across": true, "plus": true, "bonus": true,
	"focus": true, "previous": true, "various": true, "chaos": true,
	"axis": true, "basis": true, "thesis": true, "gzip": true,
	"postgres": true, "aws": true, "dns": true, "cors": true, "sms": true,
	"gis": true, "js": true, "ts": true, "css": true, "k8s": true,
	"its": true, "has": true, "was": true, "gas": true, "bus": true,
	"whereas": true, "nodejs": true, "express": true, "sass": true,
}

// Singular folds a lower-case English plural onto its singular with a few
// conservative suffix rules. Stemming proper hurt ranking on the catalog;
// plural folding only makes "issues" meet "issue".
func Singular(w string) string {
	if n := len(w); n < 3 || w[n-1] != 's' {
		// Not a plural: spare the copy (this runs for every query word).
		return w
	}
	return string(SingularBytes([]byte(w)))
}

// SingularBytes is Singular working in place on w; the result aliases w.
func SingularBytes(w []byte) []byte {
	n := len(w)
	if n < 3 || w[n-1] != 's' || pluralKeep[string(w)] {
		return w
	}
	if n == 3 {
		// Short plurals of abbreviations: PRs, MRs, IDs, DBs.
		if IsVowel(w[1]) || IsVowel(w[0]) && w[1] == 's' {
			return w
		}
		return w[:2]
	}
	switch {
	case hasSuffix(w, "ies") && n > 4:
		w[n-3] = 'y'
		return w[:n-2]
	case hasSuffix(w, "sses"), hasSuffix(w, "xes"), hasSuffix(w, "shes"),
		hasSuffix(w, "zzes"):
		return w[:n-2]
	case hasSuffix(w, "ches") && string(w) != "caches" && string(w) != "niches":
		return w[:n-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"):
		return w
	}
	return w[:n-1]
}

// IsVowel reports whether the lower-case ASCII letter c is one of the five
// plain vowels.
func IsVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

func hasSuffix(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

// ForEachToken calls fn for every normalised, non-stop-word token of s; see
// ForEachWord for whole. The slice passed to fn is scratch space (buf is
// reused when large enough); fn must copy it to keep it.
func ForEachToken(s string, buf []byte, fn func(w []byte, whole bool)) {
	ForEachWord(s, buf, func(w []byte, whole bool) {
		w = SingularBytes(w)
		if !stopWords[string(w)] {
			fn(w, whole)
		}
	})
}

// ForEachWord calls fn with each raw lower-cased word of s, before stop-word
// removal and plural folding. A run of letters and digits split by case
// ("GitHub", "getFileInfo") is reported part by part with whole == false,
// then once more in full with whole == true. A run that is not plain ASCII
// is normalised and read by script (script.go): CJK runs come as character
// bigrams. The slice passed to fn is scratch space.
func ForEachWord(s string, buf []byte, fn func(w []byte, whole bool)) {
	EachWord(s, buf, false, fn)
}

// EachWord is ForEachWord; normal says s is already NFKC. It returns buf for
// reuse.
func EachWord(s string, buf []byte, normal bool, fn func(w []byte, whole bool)) []byte {
	for i := 0; i < len(s); {
		if byteClass[s[i]] == cSep {
			i++
			continue
		}
		// Find the run of letters and digits starting at i.
		j, ascii, inner := i+1, true, false
		if byteClass[s[i]] == cHigh {
			j = i
		}
	scan:
		for j < len(s) {
			switch byteClass[s[j]] {
			case cLower:
				j++
				continue
			case cUpper:
				inner = true
				j++
				continue
			case cSep:
				break scan
			}
			r, size := utf8.DecodeRuneInString(s[j:])
			if !IsWordRune(r) {
				break
			}
			ascii = false
			j += size
		}
		if j == i {
			// A non-ASCII separator rune.
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		switch {
		case ascii && !inner:
			// Fast path: at most a leading capital ("Create").
			buf = append(buf[:0], s[i:j]...)
			if c := buf[0]; 'A' <= c && c <= 'Z' {
				buf[0] = c + 'a' - 'A'
			}
			fn(buf, false)
		case ascii:
			buf = splitRun(s[i:j], buf, fn)
		default:
			buf = splitScripts(s[i:j], buf, normal, fn)
		}
		i = j
	}
	return buf
}

// splitRun reports the case-split parts of run (letters and digits only) and,
// when there are several, the whole run; it returns buf for reuse.
func splitRun(run string, buf []byte, fn func(w []byte, whole bool)) []byte {
	buf = buf[:0]
	var prev rune // previous rune of the current part, 0 at its start
	parts := 0
	part := func() {
		if len(buf) > 0 {
			fn(buf, false)
			parts++
			buf = buf[:0]
		}
	}
	for i := 0; i < len(run); {
		r, size := utf8.DecodeRuneInString(run[i:])
		i += size
		if prev != 0 && isUpper(r) && (isLower(prev) || isDigit(prev) && len(buf) > 1) {
			// fooBar → foo | bar ; v2Api → v2 | api
			part()
		} else if prev != 0 && isLower(r) && isUpper(prev) && len(buf) > 1 {
			// HTMLParser: the upper-case run ends one rune early, unless the
			// lower-case tail is a plural "s" that ends the word (URLs, IDs).
			next, _ := utf8.DecodeRuneInString(run[i:])
			if !(r == 's' && (i >= len(run) || isUpper(next))) {
				last, lastSize := utf8.DecodeLastRune(buf)
				buf = buf[:len(buf)-lastSize]
				part()
				buf = utf8.AppendRune(buf[:0], last)
			}
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
		prev = r
	}
	part()
	if parts > 1 {
		buf = append(buf[:0], strings.ToLower(run)...)
		fn(buf, true)
	}
	return buf[:0]
}

// Byte classes for the tokeniser's ASCII fast path.
const (
	cSep   = iota // separator (any ASCII byte that is not a letter or digit)
	cLower        // a-z, 0-9
	cUpper        // A-Z
	cHigh         // first or continuation byte of a multi-byte rune
)

// byteClass classifies every byte value; it is built once and only read.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = cLower
		case 'A' <= c && c <= 'Z':
			t[c] = cUpper
		case c >= utf8.RuneSelf:
			t[c] = cHigh
		}
	}
	return t
}()

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}
