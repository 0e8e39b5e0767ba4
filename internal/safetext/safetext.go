// Package safetext makes text that came from an MCP server safe to show: Sanitize for the
// names and descriptions the model and the user read (what cannot be seen is dropped, once,
// where the text enters the bridge), Escape for a server's results printed to a terminal
// (what cannot be seen is shown as an escape, so the user sees that it was there).
//
// What counts as unseen is the same for both: control characters (C0 but newline and tab,
// DEL, C1), which a terminal acts on (clear the screen, OSC 8 links, OSC 52 clipboard
// writes, bells); format characters (Unicode Cf: bidi overrides and isolates, zero-width
// characters, the tag characters U+E0000–E007F, the soft hyphen); and the rest of Unicode's
// default-ignorable code points (variation selectors, Hangul fillers, the unassigned rest
// of plane 14), which render as nothing and can carry text a reader does not see.
package safetext

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unseen reports whether r is never shown as it is (\n, \t and \r are the callers').
func unseen(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0: // C1
		return true
	case r == 0xad: // soft hyphen (Cf)
		return true
	case r < 0x34f: // nothing else below the combining grapheme joiner
		return false
	case r == '\u2028' || r == '\u2029':
		return true
	case r > 0x34f && r < 0x600, r >= 0x2070 && r < 0x3164, r > 0x3164 && r < 0xfe00:
		// None of the tables below has a code point here (Greek to Hebrew; super- and
		// subscripts to the Hangul compatibility jamo, but for its filler; CJK, Hangul
		// syllables and the rest up to the variation selectors): the text most non-ASCII
		// descriptions are written in is not looked up in three tables a rune.
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// plain reports whether s is printable ASCII, newlines and tabs only: what nearly every
// name and description is, and what both Sanitize and Escape return as it is. It is on
// the path of every tool the catalog takes in, so it looks at eight bytes at a time and
// at single bytes only where a word holds one that is not printable ASCII.
func plain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if w := load64(s[i:]); special(w, false) && !plainBytes(s[i:i+8]) {
			return false
		}
	}
	return plainBytes(s[i:])
}

// plainBytes is plain, a byte at a time.
func plainBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// Bytes of a word: every byte 0x01, every byte 0x80.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports whether the little-endian word w holds a byte that is not printable
// ASCII (a control, DEL or a byte of a multi-byte rune), or with backslash a '\\'.
func special(w uint64, backslash bool) bool {
	below := (w - ones*0x20) &^ w & highs // a byte < 0x20 (exact when no high bit is set)
	del := w ^ (ones * 0x7f)
	del = (del - ones) &^ del & highs // a byte == 0x7f
	hit := w&highs | below | del
	if backslash {
		bs := w ^ (ones * '\\')
		hit |= (bs - ones) &^ bs & highs
	}
	return hit != 0
}

// load64 is the first eight bytes of s as a little-endian word.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Clean reports whether Sanitize(s) == s, without building it.
func Clean(s string) bool {
	if plain(s) {
		return true
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return false
		case r == '\n' || r == '\t':
		case unseen(r):
			return false
		}
		i += n
	}
	return true
}

// Sanitize returns s as it may be shown to the model or the user: valid UTF-8 (an
// invalid byte becomes U+FFFD), line ends as \n (\r\n, a lone \r and the Unicode line
// and paragraph separators), and no other control, format or default-ignorable character.
// Printable text, newlines and tabs are kept as they are, so Sanitize(Sanitize(s)) is
// Sanitize(s), and s itself is returned (no copy) when there is nothing to drop.
func Sanitize(s string) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue // the \n follows
			}
			b.WriteByte('\n')
		case r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case unseen(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Hidden counts the characters in s that no reader sees but that can carry meaning:
// what Sanitize drops, except line ends and the emoji joiner and presentation selectors
// (U+200D, U+FE0E, U+FE0F), which ordinary emoji carry. A description with any is worth a
// look (see package toolaudit).
func Hidden(s string) int {
	if plain(s) {
		return 0
	}
	n := 0
	for _, r := range s {
		switch r {
		case '\n', '\t', '\r', '\u2028', '\u2029', '\u200d', '\ufe0e', '\ufe0f':
			continue
		}
		if unseen(r) {
			n++
		}
	}
	return n
}

// Escape returns s as it may be printed to a terminal: every character Sanitize would
// drop is shown as an escape instead (ESC as \x1b, a zero-width space as \u200b, a tag
// character as \U000e0041, an invalid byte as \xff), \r\n becomes \n, and the rest is
// kept. A backslash in s is not escaped: the output is for reading, not for parsing back.
func Escape(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i-1])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r' && i < len(s) && s[i] == '\n':
			// the \n follows
		case r < 0x80 && unseen(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff && unseen(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case unseen(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SanitizeJSON returns the JSON document raw with every string in it (keys too) sanitized,
// keeping everything else byte for byte; raw itself when no string changes, which is
// found without decoding a document of printable ASCII without \b, \f, \r or \u escapes.
// A document that is not valid JSON is returned as it is: its reader rejects it anyway.
func SanitizeJSON(raw []byte) []byte { return sanitizeJSON(raw, true) }

// sanitizeJSON is SanitizeJSON, judging a literal clean without decoding it where
// cleanLiteral can only if quick: the tests turn it off to check cleanLiteral against
// decoding every literal.
func sanitizeJSON(raw []byte, quick bool) []byte {
	if plainJSON(raw) {
		return raw
	}
	var out []byte // nil until a string changes
	last := 0      // raw[:last] is in out
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return raw
		}
		lit := raw[i : end+1]
		i = end
		if plainJSON(lit) || quick && cleanLiteral(lit[1:len(lit)-1]) {
			continue
		}
		var s string
		if json.Unmarshal(lit, &s) != nil {
			return raw
		}
		if Clean(s) {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(raw))
		}
		out = append(out, raw[last:end+1-len(lit)]...)
		out = appendJSONString(out, Sanitize(s))
		last = end + 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// cleanLiteral reports whether inner, the inside of a JSON string literal, is valid UTF-8
// whose escapes are all \", \\, \/, \n or \t, with no control character and nothing
// Sanitize drops: then the string it stands for is clean as it is (each of those escapes
// stands for a character Sanitize keeps), which is known without decoding it. False says
// only that SanitizeJSON must decode it to tell.
func cleanLiteral(inner []byte) bool {
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			if i+1 == len(inner) {
				return false
			}
			switch inner[i+1] {
			case '"', '\\', '/', 'n', 't':
				i += 2
				continue
			}
			return false
		case c < 0x20 || c == 0x7f:
			return false
		case c < utf8.RuneSelf:
			i++
			continue
		}
		r, n := utf8.DecodeRune(inner[i:])
		if r == utf8.RuneError && n == 1 || unseen(r) {
			return false
		}
		i += n
	}
	return true
}

// plainJSON reports whether raw holds printable ASCII only and no escape that may stand
// for a character Sanitize drops (\b, \f, \r, \uXXXX): then none of its strings changes.
// Eight bytes at a time, as plain.
func plainJSON(raw []byte) bool {
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		if !special(binary.LittleEndian.Uint64(raw[i:]), true) {
			continue
		}
		j, ok := plainJSONBytes(raw, i, i+8)
		if !ok {
			return false
		}
		i = j - 8 // an escape may reach into the next word
	}
	_, ok := plainJSONBytes(raw, i, len(raw))
	return ok
}

// plainJSONBytes is plainJSON for raw[from:to], a byte at a time; it returns where it
// stopped (past to when an escape ends after it).
func plainJSONBytes(raw []byte, from, to int) (int, bool) {
	i := from
	for ; i < to; i++ {
		c := raw[i]
		if c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return i, false
		}
		if c == '\\' && i+1 < len(raw) {
			i++
			switch raw[i] {
			case 'b', 'f', 'r', 'u':
				return i, false
			}
		}
	}
	return i, true
}

// stringEnd is the index of the quote that ends the JSON string starting at raw[start]
// (-1 when it does not end).
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// appendJSONString appends s as a JSON string as encoding/json writes it, without its
// HTML escaping (a schema's "<" stays "<").
func appendJSONString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
