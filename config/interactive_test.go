package config

import (
	"strings"
	"testing"
)

// TestInteractiveTools: "interactiveTools" takes names and globs, is not warned about as
// an unknown field, and a bad pattern is a config error naming the field.
func TestInteractiveTools(t *testing.T) {
	tests := []struct {
		name    string
		entry   string
		want    map[string]bool
		wantErr string
	}{
		{name: "names and globs", entry: `{"command": "x", "interactiveTools": ["ask_question", "route_*"]}`,
			want: map[string]bool{"ask_question": true, "route_to_peer": true, "ask": false, "list_peers": false}},
		{name: "none", entry: `{"command": "x"}`, want: map[string]bool{"ask_question": false}},
		{name: "bad pattern", entry: `{"command": "x", "interactiveTools": ["[ask"]}`, wantErr: `interactiveTools[0]: bad glob pattern "[ask"`},
		{name: "not a list", entry: `{"command": "x", "interactiveTools": "ask_question"}`, wantErr: `interactiveTools: must be an array of strings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems := loadOne(t, tt.entry, nil)
			if tt.wantErr != "" {
				if !strings.Contains(s.Err, tt.wantErr) {
					t.Fatalf("Err = %q, want %q", s.Err, tt.wantErr)
				}
				return
			}
			if s.Err != "" || len(problems) != 0 {
				t.Fatalf("Err %q, problems %v: interactiveTools must be a known field", s.Err, problems)
			}
			for tool, want := range tt.want {
				if got := s.Interactive(tool); got != want {
					t.Errorf("Interactive(%q) = %v, want %v", tool, got, want)
				}
			}
		})
	}
}
