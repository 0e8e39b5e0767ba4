package textcut

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
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: never half of it
		{"héllo", 3, "hé"},
		{"日本", 4, "日"},
		{"abc", 0, ""},
		{"abc", -5, ""},
		{"", 3, ""},
	}
	for _, tt := range tests {
		got := Prefix(tt.s, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
