// Package runecut cuts strings to a byte budget without splitting a UTF-8 sequence:
// the one place the bridge does so (results, notes, descriptions, the cache's
// instructions), so every cut ends on a rune boundary the same way.
package runecut

import "unicode/utf8"

// Prefix returns the longest prefix of s of at most n bytes that ends on a rune
// boundary ("" when n <= 0). Invalid UTF-8 is cut like any byte: only a byte that
// continues a sequence is never the first one dropped.
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

// Cut returns s when it fits in max bytes, and otherwise a rune-boundary prefix of s
// followed by mark, the whole at most max bytes (just mark when max cannot hold more).
func Cut(s string, max int, mark string) string {
	if len(s) <= max {
		return s
	}
	return Prefix(s, max-len(mark)) + mark
}
