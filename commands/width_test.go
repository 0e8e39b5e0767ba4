package commands

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapLines(t *testing.T) {
	long := strings.Repeat("x", 130)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short lines stay", "a  b\n  c", "a  b\n  c"},
		{"wraps at spaces with deeper indent", "  " + strings.Repeat("word ", 25),
			"  " + strings.TrimSpace(strings.Repeat("word ", 19)) + "\n      " + strings.TrimSpace(strings.Repeat("word ", 6))},
		{"keeps aligned columns", "  command:    " + strings.Repeat("arg ", 30),
			"  command:    " + strings.TrimSpace(strings.Repeat("arg ", 21)) + "\n      " + strings.TrimSpace(strings.Repeat("arg ", 9))},
		{"cuts a word longer than a line", "p: " + long, "p:\n    " + long[:96] + "\n    " + long[96:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapLines(tc.in, 100)
			if got != tc.want {
				t.Errorf("wrapLines:\n%q\nwant\n%q", got, tc.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(l); n > 100 {
					t.Errorf("line of %d columns: %q", n, l)
				}
			}
		})
	}
}
