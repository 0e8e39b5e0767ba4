package textdist

import "testing"

// TestSuggest: close names (typos, prefixes, other case) are offered, at most three, the
// closest first (ties by name); far ones are not.
func TestSuggest(t *testing.T) {
	cands := []string{"start", "stop", "restart", "refresh", "status", "github"}
	tests := []struct{ name, want string }{
		{"strat", ` Did you mean "start"?`},
		{"GitHub", ` Did you mean "github"?`},
		{"git", ` Did you mean "github"?`},
		{"sta", ` Did you mean "restart" or "start" or "status"?`}, // substrings count as one edit
		{"weather", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.name, cands); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
