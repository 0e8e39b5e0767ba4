// Package textwrap breaks text into lines of at most a given number of columns without
// losing a word: the one wrapping of everything the user reads in zot (command answers and
// notes) and in the CLI.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// contIndent is how much deeper than the line it continues a continuation line starts.
const contIndent = "    "

// Wrap breaks every line of text longer than width columns (counted in runes) at spaces.
// A continuation line is indented four columns deeper than the line it continues, and
// runs of spaces inside a line (aligned columns) are kept. A word longer than a whole
// line (a long path) is cut into pieces that fill their lines, so that no line exceeds
// width and no character is lost. The work is linear in the length of text, however long
// its words are.
func Wrap(text string, width int) string {
	if width < 1 {
		width = 1
	}
	var w wrapper
	w.width = width
	w.out.Grow(len(text) + len(text)/width*(len(contIndent)+2))
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			w.out.WriteByte('\n')
		}
		w.line(line)
	}
	return w.out.String()
}

// wrapper is one Wrap in progress: the output, and the line being filled.
type wrapper struct {
	width int
	out   strings.Builder
	cur   strings.Builder // the line being filled
	cols  int             // runes in cur
	empty bool            // cur holds only indentation
	cont  string          // the indentation of continuation lines
}

// line wraps one line of the input (without its newline) onto out.
func (w *wrapper) line(line string) {
	if utf8.RuneCountInString(line) <= w.width {
		w.out.WriteString(line)
		return
	}
	body := strings.TrimLeft(line, " ")
	lead := line[:len(line)-len(body)]
	if len(lead) > w.width/2 {
		lead = lead[:w.width/2]
	}
	w.cont = lead + contIndent
	if len(w.cont) > w.width/2 {
		w.cont = contIndent[:min(len(contIndent), w.width/2)]
	}
	w.start(lead)
	// Split on single spaces so that runs of spaces (aligned columns) stay as written.
	for len(body) > 0 {
		word := body
		if i := strings.IndexByte(body, ' '); i >= 0 {
			word, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if word == "" && w.empty {
			continue
		}
		w.word(word)
	}
	w.out.WriteString(strings.TrimRight(w.cur.String(), " "))
}

// start begins a line of output with indentation indent.
func (w *wrapper) start(indent string) {
	w.cur.Reset()
	w.cur.WriteString(indent)
	w.cols, w.empty = len(indent), true
}

// flush ends the line being filled and starts a continuation line.
func (w *wrapper) flush() {
	w.out.WriteString(strings.TrimRight(w.cur.String(), " "))
	w.out.WriteByte('\n')
	w.start(w.cont)
}

// word adds one word (possibly empty: one more space of a run) to the line being filled,
// breaking the line before it, or cutting the word when no line can hold it.
func (w *wrapper) word(word string) {
	n := utf8.RuneCountInString(word)
	sep := 1
	if w.empty {
		sep = 0
	}
	if w.cols+sep+n <= w.width {
		if sep == 1 {
			w.cur.WriteByte(' ')
		}
		w.cur.WriteString(word)
		w.cols += sep + n
		w.empty = false
		return
	}
	if !w.empty {
		w.flush()
		if word == "" { // a run of spaces does not carry over to the next line
			return
		}
		if w.cols+n <= w.width {
			w.cur.WriteString(word)
			w.cols += n
			w.empty = false
			return
		}
	}
	// No line holds the word: fill lines with its pieces, walking it once.
	for {
		room := w.width - w.cols
		if n <= room {
			w.cur.WriteString(word)
			w.cols += n
			w.empty = false
			return
		}
		cut := 0
		for r := 0; r < room; r++ {
			_, size := utf8.DecodeRuneInString(word[cut:])
			cut += size
		}
		w.cur.WriteString(word[:cut])
		word, n = word[cut:], n-room
		w.flush()
	}
}

// Shorten returns text cut to at most cols columns at a space, with "…" where the rest
// was: a word is either whole or gone, never cut. A first word longer than cols is cut
// anyway, as nothing else would fit.
func Shorten(text string, cols int) string {
	if utf8.RuneCountInString(text) <= cols {
		return text
	}
	if cols < 2 {
		return "…"
	}
	// The byte offset just past the first cols-1 runes, leaving room for the ellipsis.
	end, n := 0, 0
	for end < len(text) && n < cols-1 {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
		n++
	}
	cut := end
	if text[end] != ' ' {
		if i := strings.LastIndexByte(text[:end], ' '); i > 0 {
			cut = i
		}
	}
	return strings.TrimRight(text[:cut], " ,;:") + "…"
}
