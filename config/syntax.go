package config

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/tailscale/hujson"
)

// syntaxReason says where data stops being JSON/JSONC and what stands there. It is worked
// out from the bytes, never from parseErr's text: hujson's errors are untyped, and their
// text quotes the file, where an unquoted token may be a secret.
func syntaxReason(data []byte, parseErr error) string {
	if errors.Is(parseErr, io.ErrUnexpectedEOF) {
		line, col := position(data, len(data))
		return fmt.Sprintf("line %d, column %d: the file ends before its last value is closed", line, col)
	}
	from, to := failSpan(data)
	for from < to && isSpace(data[from]) {
		from++
	}
	line, col := position(data, from)
	return fmt.Sprintf("line %d, column %d: %s", line, col, whatStands(data[from:to]))
}

// position is the line and column of data[at], counted in characters.
func position(data []byte, at int) (line, col int) {
	line, col = 1, 1
	for _, b := range data[:at] {
		if b == '\n' {
			line, col = line+1, 1
		} else if b&0xC0 != 0x80 { // characters, not UTF-8 continuation bytes
			col++
		}
	}
	return line, col
}

// failSpan is where the first error stands: between the longest cleanly cut prefix of data
// that parses or fails only as a truncation, and the next clean cut. A prefix is cut
// cleanly before white space or a closing or separating character, so that it never ends
// inside a literal, which hujson refuses at the end of input. Cut so, a prefix fails as
// soon as it holds the first error and every longer one fails too, hence the binary search.
func failSpan(data []byte) (from, to int) {
	cuts := []int{0}
	for n := 1; n < len(data); n++ {
		switch data[n] {
		case ' ', '\t', '\r', '\n', ',', ':', ']', '}':
			cuts = append(cuts, n)
		}
	}
	cuts = append(cuts, len(data))
	i := sort.Search(len(cuts), func(i int) bool {
		_, err := hujson.Parse(data[:cuts[i]])
		return err != nil && !errors.Is(err, io.ErrUnexpectedEOF)
	})
	if i == 0 || i == len(cuts) {
		return 0, len(data)
	}
	return cuts[i-1], cuts[i]
}

// whatStands names the text that broke the syntax without quoting it, except a lone
// punctuation character, which cannot be a secret.
func whatStands(tok []byte) string {
	switch {
	case len(tok) == 0:
		return "text that is not JSON"
	case isWordByte(tok[0]):
		return "an unexpected bare word or number (strings must be quoted, values separated by commas)"
	case tok[0] == '"':
		return "an unexpected string (a missing comma or colon before it?)"
	case tok[0] < 0x80 && tok[0] > ' ':
		return fmt.Sprintf("an unexpected %q", tok[0])
	}
	return "text that is not JSON"
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b == '+' || b == '.' || b >= 0x80 ||
		'0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
