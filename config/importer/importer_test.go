package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

func TestDefaultPath(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	tests := []struct {
		client, goos string
		env          map[string]string
		want         string
	}{
		{Claude, "linux", nil, "/h/.claude.json"},
		{Cursor, "darwin", nil, "/h/.cursor/mcp.json"},
		{Gemini, "linux", nil, "/h/.gemini/settings.json"},
		{Codex, "linux", nil, "/h/.codex/config.toml"},
		{Codex, "linux", map[string]string{"CODEX_HOME": "/c"}, "/c/config.toml"},
		{VSCode, "linux", nil, "/h/.config/Code/User/mcp.json"},
		{VSCode, "linux", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/Code/User/mcp.json"},
		{VSCode, "darwin", nil, "/h/Library/Application Support/Code/User/mcp.json"},
		{VSCode, "windows", map[string]string{"APPDATA": "/appdata"}, "/appdata/Code/User/mcp.json"},
	}
	for _, tt := range tests {
		got, err := DefaultPath(tt.client, "/h", tt.goos, env(tt.env))
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("DefaultPath(%s, %s) = %q, %v; want %q", tt.client, tt.goos, got, err, tt.want)
		}
	}
	if _, err := DefaultPath("zed", "/h", "linux", nil); err == nil || !strings.Contains(err.Error(), "use one of claude, cursor") {
		t.Errorf("unknown client: %v", err)
	}
}

func TestSecretDetection(t *testing.T) {
	tests := []struct {
		name    string
		entry   map[string]any
		want    map[string]any
		secrets []Secret
	}{
		{name: "env: a credential by name or shape becomes a reference, the rest is kept",
			entry: map[string]any{"env": map[string]any{"API_KEY": "abc", "HOME_DIR": "${HOME}", "my-var": "1", "FOO": "bar",
				"REGION": "eu-west-1", "DB_PASSWORD": "hunter2", "OPAQUE": "ghp_0123456789abcdefghij"}},
			want: map[string]any{"env": map[string]any{"API_KEY": "${API_KEY}", "HOME_DIR": "${HOME}", "my-var": "1", "FOO": "bar",
				"REGION": "eu-west-1", "DB_PASSWORD": "${DB_PASSWORD}", "OPAQUE": "${OPAQUE}"}},
			secrets: []Secret{{"s", "env.API_KEY", "API_KEY"}, {"s", "env.DB_PASSWORD", "DB_PASSWORD"}, {"s", "env.OPAQUE", "OPAQUE"}}},
		{name: "header keeps its scheme, and a plain header its value",
			entry: map[string]any{"headers": map[string]any{"Authorization": "Bearer abc", "X-Api-Key": "k", "X-Ref": "Bearer ${T}",
				"X-Org": "acme", "Proxy": "Bearer xyz"}},
			want: map[string]any{"headers": map[string]any{"Authorization": "Bearer ${S_AUTHORIZATION}", "X-Api-Key": "${S_X_API_KEY}", "X-Ref": "Bearer ${T}",
				"X-Org": "acme", "Proxy": "Bearer ${S_PROXY}"}},
			secrets: []Secret{{"s", "headers.Authorization", "S_AUTHORIZATION"}, {"s", "headers.Proxy", "S_PROXY"}, {"s", "headers.X-Api-Key", "S_X_API_KEY"}}},
		{name: "args: flag=value, flag value, bare token, harmless",
			entry:   map[string]any{"args": []any{"--token=abc", "--api-key", "xyz", "ghp_0123456789abcdefghij", "--path", "/tmp/x", "server.js"}},
			want:    map[string]any{"args": []any{"--token=${S_TOKEN}", "--api-key", "${S_API_KEY}", "${S_TOKEN_2}", "--path", "/tmp/x", "server.js"}},
			secrets: []Secret{{"s", "args[0]", "S_TOKEN"}, {"s", "args[2]", "S_API_KEY"}, {"s", "args[3]", "S_TOKEN_2"}}},
		{name: "url query",
			entry:   map[string]any{"url": "https://x.test/mcp?team=a&access_token=zzz&key=${K}"},
			want:    map[string]any{"url": "https://x.test/mcp?team=a&access_token=${S_ACCESS_TOKEN}&key=${K}"},
			secrets: []Secret{{"s", "url?access_token", "S_ACCESS_TOKEN"}}},
		{name: "a password in a URL's user info, wherever the URL stands",
			entry: map[string]any{"env": map[string]any{"DATABASE_URL": "postgres://app:hunter2@db.test/main", "PLAIN_URL": "postgres://app@db.test/main"},
				"args": []any{"postgresql://me:s3cret@localhost/dev", "--dsn=mysql://root:pw@127.0.0.1/x", "https://user@example.test/"}},
			want: map[string]any{"env": map[string]any{"DATABASE_URL": "${DATABASE_URL}", "PLAIN_URL": "postgres://app@db.test/main"},
				"args": []any{"${S_URL}", "--dsn=${S_DSN}", "https://user@example.test/"}},
			secrets: []Secret{{"s", "env.DATABASE_URL", "DATABASE_URL"}, {"s", "args[0]", "S_URL"}, {"s", "args[1]", "S_DSN"}}},
		{name: "a password in the server's url",
			entry:   map[string]any{"url": "https://bot:tok3n@mcp.test/mcp"},
			want:    map[string]any{"url": "${S_URL}"},
			secrets: []Secret{{"s", "url", "S_URL"}}},
		{name: "nothing secret", entry: map[string]any{"command": "npx", "args": []any{"-y", "pkg@1.2.3"}},
			want: map[string]any{"command": "npx", "args": []any{"-y", "pkg@1.2.3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &converter{res: &Result{}}
			c.secrets("s", tt.entry)
			if !reflect.DeepEqual(tt.entry, tt.want) {
				t.Errorf("entry = %v, want %v", tt.entry, tt.want)
			}
			if !reflect.DeepEqual(c.res.Secrets, tt.secrets) {
				t.Errorf("secrets = %v, want %v", c.res.Secrets, tt.secrets)
			}
		})
	}
}

func TestLooksLikeToken(t *testing.T) {
	for s, want := range map[string]bool{
		"ghp_abcdefghijklmnop1234":                        true,
		"sk-proj-abcdefgh12345678":                        true,
		"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7":              true,
		"@modelcontextprotocol/server-files":              false,
		"/home/user/some/long/path/abc12345":              false,
		"ghp_":                                            false,
		"https://example.test/abcdef0123456789abcdef0123": false,
		"server-filesystem-with-a-long-name":              false,
	} {
		if got := looksLikeToken(s); got != want {
			t.Errorf("looksLikeToken(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestReadKeepsReferencesAndMapsSpellings(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(src, []byte(`{
	  // Gemini allows comments? Our reader does, and says nothing of it.
	  "mcpServers": {
	    "h": {"httpUrl": "https://h.test/mcp", "timeout": 1500, "env": {"A": "$TOKEN and ${OTHER}"}, "oauth": {"enabled": true}, "zzz": 1,
	          "headers": {"Authorization": "Bearer $GEM_TOKEN", "X-Team": "core"}},
	    "c": {"command": "$TOOLS/bin/server", "args": ["--root", "$PROJECT_ROOT"], "cwd": "$HOME/work"},
	    "w": {"serverUrl": "https://w.test/mcp", "transportType": "sse"}
	  }}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Read(Options{Client: Gemini, From: src})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, s := range res.Servers {
		got[s.Name] = s.Entry
	}
	want := map[string]map[string]any{
		"h": {"url": "https://h.test/mcp", "type": "http", "requestTimeout": 1.5, "env": map[string]any{"A": "${TOKEN} and ${OTHER}"},
			"headers": map[string]any{"Authorization": "Bearer ${GEM_TOKEN}", "X-Team": "core"}},
		"c": {"command": "${TOOLS}/bin/server", "args": []any{"--root", "${PROJECT_ROOT}"}, "cwd": "${HOME}/work"},
		"w": {"url": "https://w.test/mcp", "type": "sse"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{`server "h": oauth.enabled dropped: not needed`, `server "h": zzz dropped: the bridge does not know this field`} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if len(res.Secrets) != 0 {
		t.Errorf("references taken for secrets: %v", res.Secrets)
	}
}

// TestImportRenamesBadNames: import applies the one name rule. A name the bridge refuses
// (a path, a pointer escape, 300 characters, a /mcp word, a flag, a Cyrillic look-alike)
// or one that looks like a configured server is renamed, with a note saying from what
// and why; the others keep their names. Before, import wrote names that add refuses.
// TestImportKeepsOAuthClient: the fields of another client's "oauth" object that the
// bridge reads are kept (a literal secret becomes a ${VAR} reference, named in the
// secrets), the others dropped with a note each, and an object with nothing left is
// dropped whole. Before, the whole object was dropped, pre-registered client and all.
func TestImportKeepsOAuthClient(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(src, []byte(`{"mcpServers": {
	    "h": {"url": "https://h.test/mcp", "oauth": {"clientId": "app-1", "clientSecret": "s3cr3t-Value-9f8e7d6c5b4a", "scopes": ["read"], "zzz": 1}},
	    "g": {"url": "https://g.test/mcp", "oauth": {"enabled": true}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Read(Options{Client: Gemini, From: src})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, s := range res.Servers {
		got[s.Name] = s.Entry
	}
	if want := map[string]any{"clientId": "app-1", "clientSecret": "${H_CLIENT_SECRET}"}; !reflect.DeepEqual(got["h"]["oauth"], want) {
		t.Errorf("h's oauth: %v, want %v", got["h"]["oauth"], want)
	}
	if o, ok := got["g"]["oauth"]; ok {
		t.Errorf("g keeps an oauth object with nothing the bridge reads: %v", o)
	}
	if !slices.ContainsFunc(res.Secrets, func(s Secret) bool {
		return s.Server == "h" && s.Field == "oauth.clientSecret" && s.Var == "H_CLIENT_SECRET"
	}) {
		t.Errorf("the secret is not reported by field: %+v", res.Secrets)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{`server "h": oauth.scopes dropped: not used`, `server "h": oauth.zzz dropped: the bridge does not know this field`, `server "g": oauth.enabled dropped`} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if strings.Contains(notes, "s3cr3t") {
		t.Error("a note shows the secret")
	}
}

func TestImportRenamesBadNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	names := []string{"../../evil", "a/b~1c", long, "help", "-rf", "s\u0435arch", "search", "GitHub", "fine", "a-b-1c"}
	var sb strings.Builder
	sb.WriteString(`{"mcpServers": {`)
	for i, n := range names {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%q: {\"command\": \"c%d\"}", n, i)
	}
	sb.WriteString("}}")
	from := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(from, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Read(Options{Client: Claude, From: from, Taken: []string{"github"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // new name → old name ("" when kept)
	for _, s := range res.Servers {
		if err := config.CheckServerName(s.Name); err != nil {
			t.Errorf("imported name %q is refused: %v", s.Name, err)
		}
		got[s.Name] = s.Was
	}
	want := map[string]string{
		"evil": "../../evil", "a-b-1c-2": "a/b~1c", strings.Repeat("x", 64): long, "help-server": "help", "rf": "-rf",
		"search-2": "s\u0435arch", "search": "", "GitHub-2": "GitHub", "fine": "", "a-b-1c": "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("imported names (new → old):\n got %q\nwant %q", got, want)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, w := range []string{
		`server "evil": renamed from "../../evil": server name "../../evil" has the character '.'`,
		`server "GitHub-2": renamed from "GitHub": server name "GitHub" looks like the server "github"`,
		`server "search-2": renamed from "sеarch": server name "sеarch" mixes Latin and Cyrillic`,
		`renamed from "` + strings.Repeat("x", 60) + `"…: server name`,
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("no note %q in:\n%s", w, notes)
		}
	}
}
