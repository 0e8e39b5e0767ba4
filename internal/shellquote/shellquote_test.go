package shellquote

import "testing"

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain/path.txt", "plain/path.txt"},
		{"", "''"},
		{"with space", "'with space'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a;b", "'a;b'"},
		{"user@host:1", "user@host:1"},
		{"/Users/a/Library/Application Support/zot/mcp.json", "'/Users/a/Library/Application Support/zot/mcp.json'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
