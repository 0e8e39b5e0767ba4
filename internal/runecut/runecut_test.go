package runecut

import (
	"testing"
	"unicode/utf8"
)

func TestPrefix(t *testing.T) {
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

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		mark string
		want string
	}{
		{"short", 10, "…", "short"},
		{"exactly10!", 10, "…", "exactly10!"},
		{"hello world", 8, "…", "hello…"}, // "…" is 3 bytes
		{"héllo", 5, "…", "h…"},           // é would straddle the cut
		{"abcdef", 2, "…", "…"},           // no room for text: the mark alone
		{"abcdef", 4, "...", "a..."},
	}
	for _, tt := range tests {
		got := Cut(tt.s, tt.max, tt.mark)
		if got != tt.want {
			t.Errorf("Cut(%q, %d, %q) = %q, want %q", tt.s, tt.max, tt.mark, got, tt.want)
		}
		if len(tt.s) > tt.max && len(tt.mark) <= tt.max && len(got) > tt.max {
			t.Errorf("Cut(%q, %d, %q) = %q is over the budget", tt.s, tt.max, tt.mark, got)
		}
	}
}
