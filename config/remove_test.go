package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckServerName(t *testing.T) {
	for _, tc := range []struct {
		name, wantErr string
		ok            bool
	}{
		{"fs", "", true},
		{"my-server_2", "", true},
		{strings.Repeat("a", MaxServerNameLen), "", true},
		{strings.Repeat("a", MaxServerNameLen+1), "letters, digits, '-' and '_'", false},
		{"", "letters, digits, '-' and '_'", false},
		{"my server", "letters, digits, '-' and '_'", false},
		{"a/b", "letters, digits, '-' and '_'", false},
		{"a.b", "letters, digits, '-' and '_'", false},
		{"émoji", "", true},
		{"😀moji", "letters, digits, '-' and '_'", false},
		{"a\nb", "letters, digits, '-' and '_'", false},
		{"help", "subcommand word", false},
		{"ALL", "subcommand word", false},
		{"trust", "subcommand word", false},
		{"-h", "subcommand word", false},
	} {
		err := CheckServerName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckServerName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("CheckServerName(%q): the error does not say what is allowed: %v", tc.name, err)
		}
	}
}

func TestRemoveServer(t *testing.T) {
	for _, tc := range []struct {
		name, in, remove, want string
		removed                bool
	}{
		{"keeps comments and the other entry",
			"{\n  // top\n  \"mcpServers\": {\n    // a\n    \"a\": {\"command\": \"x\"},\n    // b\n    \"b\": {\"command\": \"y\"}\n  }\n}\n", "b",
			"{\n  // top\n  \"mcpServers\": {\n    // a\n    \"a\": {\"command\": \"x\"}\n  }\n}\n", true},
		{"first of two",
			"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\": {\"command\": \"y\"},\n  },\n}\n", "a",
			"{\n  \"mcpServers\": {\n    \"b\": {\"command\": \"y\"},\n  },\n}\n", true},
		{"VS Code key", `{"servers": {"a": {}, "b": {}}}`, "a", `{"servers": {"b": {}}}`, true},
		{"missing entry", `{"mcpServers": {"a": {}}}`, "zz", `{"mcpServers": {"a": {}}}`, false},
		{"byte order mark kept", "\xef\xbb\xbf{\"mcpServers\": {\"a\": {}, \"b\": {}}}", "b", "\xef\xbb\xbf{\"mcpServers\": {\"a\": {}}}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			if has, err := FileHasServer(p, tc.remove); err != nil || has != tc.removed {
				t.Fatalf("FileHasServer = %v, %v; want %v", has, err, tc.removed)
			}
			removed, err := RemoveServer(context.Background(), p, tc.remove)
			if err != nil || removed != tc.removed {
				t.Fatalf("RemoveServer = %v, %v; want %v", removed, err, tc.removed)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want {
				t.Errorf("file after remove:\n%s\nwant:\n%s", got, tc.want)
			}
			if tc.removed {
				if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
					t.Errorf("mode %o after remove, want 0600", st.Mode().Perm())
				}
			}
		})
	}
	// A file that is not JSONC is left alone, and the error names it.
	p := filepath.Join(t.TempDir(), "mcp.json")
	bad := `{"mcpServers": {"a": {},}`
	if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveServer(context.Background(), p, "a"); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("RemoveServer on a broken file: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != bad {
		t.Errorf("a broken file was changed: %s", got)
	}
	if removed, err := RemoveServer(context.Background(), filepath.Join(t.TempDir(), "none.json"), "a"); removed || err != nil {
		t.Errorf("missing file: %v, %v", removed, err)
	}
}
