package textcut

import (
	"testing"
	"unicode/utf8"
)

// TestPrefixEdges adds 4-byte runes, exact fits and invalid bytes to TestPrefix.
func TestPrefixEdges(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abc", 10, "abc"},
		{"abc", 2, "ab"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"é", 1, ""},            // 2-byte rune does not fit
		{"aé", 2, "a"},          // cut inside é backs off to its start
		{"aé", 3, "aé"},         // exact fit
		{"日本", 5, "日"},          // 3-byte runes
		{"日本", 3, "日"},          // boundary exactly at a rune start
		{"😀x", 3, ""},           // 4-byte rune, no room
		{"😀x", 4, "😀"},          // 4-byte rune exactly
		{"\xffabc", 2, "\xffa"}, // invalid bytes are cut as bytes
	}
	for _, tt := range tests {
		got := Prefix(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if utf8.ValidString(tt.s) && !utf8.ValidString(got) {
			t.Errorf("Prefix(%q, %d) = %q splits a rune", tt.s, tt.n, got)
		}
	}
}
