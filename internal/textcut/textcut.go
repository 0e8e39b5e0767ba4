// Package textcut cuts text to a byte budget without splitting a UTF-8 sequence: the one
// implementation shared by result truncation, descriptions, notes and the cache.
package textcut

import "unicode/utf8"

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
