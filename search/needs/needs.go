// Package needs reads a whole task (a request of several sentences or
// clauses) into the distinct needs it states, and merges the rankings of
// those needs into one list that covers each of them.
//
// A request that pastes a screenshot or a log states its needs around the
// paste: Clean blanks out the long tokens without spaces (base64 runs, data:
// URLs, hashes) that carry no words a tool is described by, and that would
// otherwise cost most of the time spent reading the request. Split cuts what
// is left at sentence ends and clause commas into needs; Merge picks, rank by
// rank, the candidate that adds most to the needs not yet answered, so that
// one need's siblings do not take every place.
package needs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

const (
	// maxToken is the longest ASCII chunk without white space read as text
	// whatever its shape: a longer one dense with code punctuation, or
	// without word boundaries, is pasted data (a minified line), not words.
	maxToken = 100
	// minBlob is the shortest chunk tested for the shape of base64 or hex.
	minBlob = 32
	// minWeight is the least a clause must weigh (words; a Han or Kana
	// character counts half) to be a need of its own rather than a part of
	// the clause before it ("six of us" in "dinner, six of us, and …").
	minWeight = 3
	// minTask is the least a request must weigh to be read as a whole
	// task: a search-box request with a comma ("pods keep restarting, show
	// me why") states one need.
	minTask = 20
	// MaxNeeds caps the needs read from one request: a page of results
	// cannot cover more.
	MaxNeeds = 8
	// maxLabel is the longest label, in bytes.
	maxLabel = 60
	// maxLabelWords is the most words a label keeps.
	maxLabelWords = 8
)

// Clean returns q with its pasted data blanked out: every white-space
// separated chunk that is a data: URL or shaped like base64, hex or a
// minified line becomes one space. A request without such chunks is
// returned as it is.
func Clean(q string) string {
	if !hasBlob(q) {
		return q
	}
	var b strings.Builder
	b.Grow(len(q))
	last := 0
	forChunks(q, func(i, j int) {
		if blob(q[i:j]) {
			b.WriteString(q[last:i])
			b.WriteByte(' ')
			last = j
		}
	})
	b.WriteString(q[last:])
	return b.String()
}

// hasBlob reports whether any chunk of q is pasted data.
func hasBlob(q string) bool {
	found := false
	forChunks(q, func(i, j int) { found = found || blob(q[i:j]) })
	return found
}

// forChunks calls f with the bounds of each white-space separated chunk of
// q whose length could make it a blob.
func forChunks(q string, f func(i, j int)) {
	start := -1
	for i, r := range q {
		if unicode.IsSpace(r) {
			if start >= 0 && i-start >= minBlob/2 {
				f(start, i)
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 && len(q)-start >= minBlob/2 {
		f(start, len(q))
	}
}

// blob reports whether chunk is pasted data rather than words: a data:
// URL, or a chunk shaped like base64, hex or a minified line. A URL, a path
// or a long identifier (snake_case, camelCase) is words, however long.
func blob(chunk string) bool {
	if i := strings.Index(chunk, "data:"); i >= 0 && strings.Contains(chunk[i:], ";base64,") {
		return true
	}
	if len(chunk) < minBlob || strings.Contains(chunk, "://") {
		return false
	}
	var digits, upper, lower, seps, pad, code, bounds int
	for i := 0; i < len(chunk); i++ {
		switch c := chunk[i]; {
		case c >= utf8.RuneSelf:
			// Text in a script written without spaces is one long chunk.
			return false
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z':
			upper++
			if i > 0 && chunk[i-1] >= 'a' && chunk[i-1] <= 'z' {
				bounds++
			}
		case c >= 'a' && c <= 'z':
			lower++
		case c == '/' || c == '.' || c == '-' || c == '_':
			seps++
		case c == '+' || c == '=':
			pad++
		default:
			code++
		}
	}
	n := len(chunk)
	if code > 0 {
		// Code punctuation: a minified line or a JSON dump when dense.
		return n > maxToken && code*16 >= n
	}
	if seps*16 > n || digits == 0 {
		// Separators every few characters make a path or an identifier;
		// base64 and hex mix digits into their letters.
		return false
	}
	switch {
	case hexOnly(chunk):
		return upper+lower > 0
	case pad > 0:
		return upper+lower > 0
	case upper > 0 && lower > 0:
		// camelCase is mostly lower case, base64 is not.
		return lower*10 < (upper+lower+digits)*7
	}
	// A long run of letters and digits without word boundaries.
	return n > maxToken && bounds == 0
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func hexOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Need is one need of a request.
type Need struct {
	// Text is the clause that states the need, as the request wrote it.
	Text string
	// Label is a few of its words, letters and digits only, to name the
	// need in the answer (the request reaches the model again, so nothing
	// but words goes back).
	Label string
}

// Split returns the needs q states, at most MaxNeeds (the first ones and
// the last), or nil when it states one (a search-box request, one sentence without clause commas). q
// should be Clean already.
func Split(q string) []Need {
	var parts []string
	var weights []float64
	for _, c := range clauses(q) {
		w := weigh(c)
		if w == 0 {
			continue
		}
		// A clause too light to be a need joins the one before it (or,
		// first, the one after).
		if n := len(parts); n > 0 && (w < minWeight || weights[n-1] < minWeight) {
			parts[n-1] += " " + c
			weights[n-1] += w
			continue
		}
		parts = append(parts, c)
		weights = append(weights, w)
	}
	if n := len(parts); n > 1 && weights[n-1] < minWeight {
		parts[n-2] += " " + parts[n-1]
		parts = parts[:n-1]
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total < minTask {
		return nil
	}
	var out []Need
	seen := map[string]bool{}
	for _, p := range parts {
		if dataLine(p) {
			continue
		}
		label, key := labelOf(p)
		// The lines of a pasted log differ in their numbers, addresses and
		// paths only.
		if key == "" || seen[key] || seen["\x00"+label] {
			continue
		}
		seen[key], seen["\x00"+label] = true, true
		out = append(out, Need{Text: strings.TrimSpace(p), Label: label})
	}
	if len(out) > MaxNeeds {
		// The ask usually closes a request that pastes something first.
		out = append(out[:MaxNeeds-1], out[len(out)-1])
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// clauses cuts q at sentence ends, line ends, semicolons and clause commas.
// A full stop ends a sentence only before white space or the end ("v1.2"
// and "app.ts" stay whole), and not after an abbreviation ("e.g."); the ideographic comma
// cuts a clause only after kana (Japanese "…して、"): after Han it lists
// items ("客户名称、负责人").
func clauses(q string) []string {
	var out []string
	start := 0
	prev := rune(0)
	cut := func(i, next int) {
		if s := strings.TrimSpace(q[start:i]); s != "" {
			out = append(out, s)
		}
		start = next
	}
	for i, r := range q {
		size := utf8.RuneLen(r)
		switch r {
		case '\n', ';', '!', '?', '。', '！', '？', '；', '，':
			cut(i, i+size)
		case '.', ',':
			if (i+1 == len(q) || q[i+1] == ' ' || q[i+1] == '\n' || q[i+1] == '\t') && !(r == '.' && abbreviation(q[start:i])) {
				cut(i, i+size)
			}
		case '、':
			if unicode.In(prev, unicode.Hiragana, unicode.Katakana) {
				cut(i, i+size)
			}
		}
		prev = r
	}
	cut(len(q), len(q))
	return out
}

// abbreviation reports whether the full stop that follows s closes an
// abbreviation ("e.g.", "i.e.", "U.S.", an initial) rather than a sentence:
// the word before it holds a dot, or is one letter.
func abbreviation(s string) bool {
	w := s[strings.LastIndexFunc(s, unicode.IsSpace)+1:]
	if strings.Contains(w, ".") {
		return true
	}
	r, size := utf8.DecodeRuneInString(w)
	return size == len(w) && unicode.IsLetter(r)
}

// weigh is the number of words of s, a Han, Kana or Hangul character
// counting half.
func weigh(s string) float64 {
	w := 0.0
	in := false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			w += 0.5
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				w++
			}
			in = true
		default:
			in = false
		}
	}
	return w
}

// labelOf returns the label of clause s (its first words, letters and
// digits only) and the key that identifies it among the request's clauses
// (its letters, without the words shaped like numbers, hex or paths).
func labelOf(s string) (label, key string) {
	var kb strings.Builder
	for _, f := range strings.Fields(s) {
		if dataWord(f) {
			continue
		}
		for _, r := range f {
			if unicode.IsLetter(r) {
				kb.WriteRune(unicode.ToLower(r))
			} else if !unicode.IsDigit(r) {
				kb.WriteByte(' ')
			}
		}
		kb.WriteByte(' ')
	}
	var words []string
	for w := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(words) < maxLabelWords {
			words = append(words, w)
		}
	}
	label = strings.Join(words, " ")
	if len(label) > maxLabel {
		label = textcut.Prefix(label, maxLabel)
		if i := strings.LastIndexByte(label, ' '); i > maxLabel/2 {
			label = label[:i]
		}
	}
	return label, strings.Join(strings.Fields(kb.String()), " ")
}

// dataWord reports whether the white-space separated word w is a number,
// an address, an offset or a path (a log line's varying part) rather than
// a word: it holds a digit or a path separator, and is ASCII (a clause in a
// script written without spaces is one word, digits or not).
func dataWord(w string) bool {
	return strings.ContainsAny(w, "0123456789/\\") && ascii(w)
}

// dataLine reports whether clause s is mostly numbers, hex and paths (a
// stack frame, a line of a dump), stating no need.
func dataLine(s string) bool {
	n, data := 0, 0
	for _, f := range strings.Fields(s) {
		n++
		if dataWord(f) {
			data++
		}
	}
	return data*2 > n
}
