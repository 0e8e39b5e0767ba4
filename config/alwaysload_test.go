package config

import (
	"strings"
	"testing"
)

// TestAlwaysLoad: "alwaysLoad" takes true (every tool), false, or names and globs as
// includeTools does; it is a known field, and a value of another type or a bad pattern is
// a config error naming the field.
func TestAlwaysLoad(t *testing.T) {
	tests := []struct {
		name    string
		entry   string
		want    map[string]bool
		wantErr string
	}{
		{name: "names and globs", entry: `{"command": "x", "alwaysLoad": ["get_me", "search_*"]}`,
			want: map[string]bool{"get_me": true, "search_code": true, "get_file": false, "research": false}},
		{name: "true is every tool", entry: `{"command": "x", "alwaysLoad": true}`, want: map[string]bool{"get_me": true, "x": true}},
		{name: "false is none", entry: `{"command": "x", "alwaysLoad": false}`, want: map[string]bool{"get_me": false}},
		{name: "absent is none", entry: `{"command": "x"}`, want: map[string]bool{"get_me": false}},
		{name: "bad pattern", entry: `{"command": "x", "alwaysLoad": ["[get"]}`, wantErr: `alwaysLoad[0]: bad glob pattern "[get"`},
		{name: "not a string", entry: `{"command": "x", "alwaysLoad": ["a", 3]}`, wantErr: `alwaysLoad[1]: must be a string`},
		{name: "a string", entry: `{"command": "x", "alwaysLoad": "get_me"}`, wantErr: `alwaysLoad: must be true, false or an array`},
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
				t.Fatalf("Err %q, problems %v: alwaysLoad must be a known field", s.Err, problems)
			}
			for tool, want := range tt.want {
				if got := s.AlwaysLoaded(tool); got != want {
					t.Errorf("AlwaysLoaded(%q) = %v, want %v", tool, got, want)
				}
			}
		})
	}
}
