// Package textcut cuts text to a byte budget without splitting a UTF-8 sequence: the one
// implementation shared by result truncation, descriptions, notes and the cache.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// Prefix returns the longest prefix of s of at most n bytes that ends on a rune boundary
// ("" when n <= 0).
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// FirstLine returns the first sentence or line of s, capped at max bytes on a rune boundary.
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if i := strings.Index(s, ". "); i >= 0 && i < max {
		s = s[:i+1]
	}
	return Truncate(s, max)
}

// Truncate cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return Prefix(s, max-len("…")) + "…"
}
