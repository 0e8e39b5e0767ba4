package serve_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/zot-mcp/mcp-bridge/config/importer"
	"github.com/zot-mcp/mcp-bridge/serve"
)

// The binary's path has a space and a single quote, so every format must quote it.
const (
	testBin      = "/opt/my tools/it's/mcp-bridge"
	testURL      = "http://127.0.0.1:43123/mcp/Zk3pathsecret"
	testTokenVar = "MCP_BRIDGE_TOKEN"
	testToken    = "tok-4f9a-not-to-be-printed"
)

var testCmd = []string{testBin, "serve", "--tools", "search"}

type mode struct {
	name string
	in   serve.ClientConfigInput
}

var modes = []mode{
	{"stdio", serve.ClientConfigInput{Command: testCmd}},
	{"http", serve.ClientConfigInput{Command: testCmd, URL: testURL}},
	{"http+token", serve.ClientConfigInput{Command: testCmd, URL: testURL, TokenEnv: testTokenVar}},
}

// TestClientConfig: for every client and transport the text parses in the client's own
// syntax to the expected entry, and says where it goes (in a comment where the file
// allows one, else in the hint).
func TestClientConfig(t *testing.T) {
	stdioJSON := map[string]any{"command": testBin, "args": []any{"serve", "--tools", "search"}}
	tests := []struct {
		client, mode string
		// want is the decoded document (JSON and TOML) or the argv (claude).
		want any
	}{
		{"claude", "stdio", []string{"claude", "mcp", "add", "--scope", "user", "mcp-bridge", "--", testBin, "serve", "--tools", "search"}},
		{"claude", "http", []string{"claude", "mcp", "add", "--scope", "user", "--transport", "http", "mcp-bridge", testURL}},
		{"claude", "http+token", []string{"claude", "mcp", "add", "--scope", "user", "--transport", "http",
			"--header", "Authorization: Bearer ${MCP_BRIDGE_TOKEN}", "mcp-bridge", testURL}},

		{"codex", "stdio", map[string]any{"mcp_servers": map[string]any{"mcp-bridge": map[string]any{
			"command": testBin, "args": []any{"serve", "--tools", "search"}}}}},
		{"codex", "http", map[string]any{"mcp_servers": map[string]any{"mcp-bridge": map[string]any{"url": testURL}}}},
		{"codex", "http+token", map[string]any{"mcp_servers": map[string]any{"mcp-bridge": map[string]any{
			"url": testURL, "bearer_token_env_var": testTokenVar}}}},

		{"cursor", "stdio", map[string]any{"mcpServers": map[string]any{"mcp-bridge": stdioJSON}}},
		{"cursor", "http", map[string]any{"mcpServers": map[string]any{"mcp-bridge": map[string]any{"url": testURL}}}},
		{"cursor", "http+token", map[string]any{"mcpServers": map[string]any{"mcp-bridge": map[string]any{
			"url": testURL, "headers": map[string]any{"Authorization": "Bearer ${env:MCP_BRIDGE_TOKEN}"}}}}},

		{"vscode", "stdio", map[string]any{"servers": map[string]any{"mcp-bridge": map[string]any{
			"type": "stdio", "command": testBin, "args": []any{"serve", "--tools", "search"}}}}},
		{"vscode", "http", map[string]any{"servers": map[string]any{"mcp-bridge": map[string]any{"type": "http", "url": testURL}}}},
		{"vscode", "http+token", map[string]any{"servers": map[string]any{"mcp-bridge": map[string]any{
			"type": "http", "url": testURL, "headers": map[string]any{"Authorization": "Bearer ${env:MCP_BRIDGE_TOKEN}"}}}}},

		{"gemini", "stdio", map[string]any{"mcpServers": map[string]any{"mcp-bridge": stdioJSON}}},
		{"gemini", "http", map[string]any{"mcpServers": map[string]any{"mcp-bridge": map[string]any{"httpUrl": testURL}}}},
		{"gemini", "http+token", map[string]any{"mcpServers": map[string]any{"mcp-bridge": map[string]any{
			"httpUrl": testURL, "headers": map[string]any{"Authorization": "Bearer ${MCP_BRIDGE_TOKEN}"}}}}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.mode, func(t *testing.T) {
			seen[tt.client+"/"+tt.mode] = true
			in := modeInput(t, tt.mode)
			in.Client = tt.client
			text, hint, err := serve.ClientConfig(in)
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			where := hint
			var got any
			switch tt.client {
			case "claude":
				if strings.Count(text, "\n") != 1 || !strings.HasSuffix(text, "\n") {
					t.Errorf("want one shell line, got %q", text)
				}
				argv, err := splitShell(strings.TrimSuffix(text, "\n"))
				if err != nil {
					t.Fatalf("split %q: %v", text, err)
				}
				got = argv
				if sh, err := exec.LookPath("sh"); err == nil {
					if real := shellArgv(t, sh, text); !reflect.DeepEqual(real, argv) {
						t.Errorf("sh splits the line into %q, our splitter into %q", real, argv)
					}
				}
			case "codex":
				first, _, _ := strings.Cut(text, "\n")
				if !strings.HasPrefix(first, "# ") || hint != "" {
					t.Errorf("want a leading # comment and no separate hint; first line %q, hint %q", first, hint)
				}
				where = first
				var doc map[string]any
				if _, err := toml.Decode(text, &doc); err != nil {
					t.Fatalf("TOML: %v\n%s", err, text)
				}
				got = doc
			case "cursor":
				// Cursor reads mcp.json as plain JSON: no comment may be in it.
				if hint == "" {
					t.Error("no hint: Cursor's JSON cannot say where it goes")
				}
				got = strictJSON(t, text)
			default: // vscode and gemini read JSON with comments; only the first line is one
				first, rest, _ := strings.Cut(text, "\n")
				if !strings.HasPrefix(first, "// ") || hint != "" {
					t.Errorf("want a leading // comment and no separate hint; first line %q, hint %q", first, hint)
				}
				where = first
				got = strictJSON(t, rest)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parsed output:\n got %#v\nwant %#v\ntext:\n%s", got, tt.want, text)
			}
			wantWhere := map[string]string{"claude": "~/.claude.json", "codex": "~/.codex/config.toml",
				"cursor": "~/.cursor/mcp.json", "vscode": "mcp.json", "gemini": "~/.gemini/settings.json"}[tt.client]
			if !strings.Contains(where, wantWhere) {
				t.Errorf("the line saying where it goes (%q) does not name %s", where, wantWhere)
			}
			switch tt.mode {
			case "http":
				if !strings.Contains(where, "the URL itself is the secret") || !strings.Contains(where, "private") {
					t.Errorf("a path-secret URL without a warning to keep it private: %q", where)
				}
				if p := map[string]string{"cursor": ".cursor/", "vscode": ".vscode/", "gemini": ".gemini/"}[tt.client]; p != "" &&
					strings.Contains(strings.ReplaceAll(where, "~/"+p, ""), p) {
					t.Errorf("a path-secret URL offered for a project file, which is often committed: %q", where)
				}
			case "http+token":
				if !strings.Contains(where, testTokenVar) {
					t.Errorf("the hint does not name the variable to set: %q", where)
				}
			}
		})
	}
	for _, c := range serve.ClientNames() {
		for _, m := range modes {
			if !seen[c+"/"+m.name] {
				t.Errorf("no case for %s/%s", c, m.name)
			}
		}
	}
}

// TestClientConfigReadsBack: what we print for the file-based clients is what our own
// importer (the model of how those clients read their files) takes for a server started
// by the same command, or reached at the same URL with the token from the same variable.
func TestClientConfigReadsBack(t *testing.T) {
	for _, client := range []string{"codex", "cursor", "vscode", "gemini"} {
		for _, m := range modes {
			t.Run(client+"/"+m.name, func(t *testing.T) {
				in := m.in
				in.Client = client
				text, _, err := serve.ClientConfig(in)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "config")
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
				res, err := importer.Read(importer.Options{Client: client, From: path})
				if err != nil {
					t.Fatalf("import: %v\n%s", err, text)
				}
				if len(res.Servers) != 1 || res.Servers[0].Name != "mcp-bridge" {
					t.Fatalf("servers = %+v", res.Servers)
				}
				if len(res.Secrets) != 0 {
					t.Errorf("the importer found literal secrets: %+v", res.Secrets)
				}
				e := res.Servers[0].Entry
				if m.in.URL == "" {
					if e["command"] != testBin || fmt.Sprint(e["args"]) != "[serve --tools search]" {
						t.Errorf("entry %v: want command %q with args serve --tools search", e, testBin)
					}
					return
				}
				if e["url"] != testURL {
					t.Errorf("url = %v", e["url"])
				}
				auth := ""
				if h, ok := e["headers"].(map[string]any); ok {
					auth, _ = h["Authorization"].(string)
				}
				want := ""
				if m.in.TokenEnv != "" {
					want = "Bearer ${" + testTokenVar + "}"
					if client == "cursor" || client == "vscode" {
						want = "Bearer ${env:" + testTokenVar + "}" // the bridge reads this form too
					}
				}
				if auth != want {
					t.Errorf("Authorization = %q, want %q", auth, want)
				}
			})
		}
	}
}

// TestClientConfigNoTokenValue: the token's value, present in the environment, is in no
// output: only the variable's name is.
func TestClientConfigNoTokenValue(t *testing.T) {
	t.Setenv(testTokenVar, testToken)
	for _, client := range serve.ClientNames() {
		for _, m := range modes {
			in := m.in
			in.Client = client
			text, hint, err := serve.ClientConfig(in)
			if err != nil {
				t.Fatalf("%s/%s: %v", client, m.name, err)
			}
			if strings.Contains(text+hint, testToken) {
				t.Errorf("%s/%s prints the token's value:\n%s\n%s", client, m.name, text, hint)
			}
		}
	}
}

// TestClientConfigQuoting: arguments any shell would mangle survive as one word each in
// the claude line (checked by a real sh too), and as exact strings in TOML and JSON.
func TestClientConfigQuoting(t *testing.T) {
	odd := []string{"/p/a b/c'd\"e/mcp-bridge", "serve", "", "$HOME", "`id`", `back\slash`, "new\nline", "tab\tx",
		"=zsh-equals", "%job", "~user", "a;b&c|d", "*?[x]", "#hash", "!bang", "ünï", "ctl\x01"}
	text, _, err := serve.ClientConfig(serve.ClientConfigInput{Client: "claude", Command: odd})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"claude", "mcp", "add", "--scope", "user", "mcp-bridge", "--"}, odd...)
	got, err := splitShell(strings.TrimSuffix(text, "\n"))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("split = %q, %v\nwant %q\nline: %s", got, err, want, text)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if real := shellArgv(t, sh, text); !reflect.DeepEqual(real, want) {
			t.Errorf("sh splits into %q\nwant %q", real, want)
		}
	}
	text, _, err = serve.ClientConfig(serve.ClientConfigInput{Client: "codex", Command: odd})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(text, &doc); err != nil {
		t.Fatalf("TOML: %v\n%s", err, text)
	}
	if e := doc.MCPServers["mcp-bridge"]; e.Command != odd[0] || !reflect.DeepEqual(e.Args, odd[1:]) {
		t.Errorf("TOML gives %q %q\nwant %q", e.Command, e.Args, odd)
	}
	text, _, err = serve.ClientConfig(serve.ClientConfigInput{Client: "cursor", Command: odd})
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		t.Fatal(err)
	}
	if e := j.MCPServers["mcp-bridge"]; e.Command != odd[0] || !reflect.DeepEqual(e.Args, odd[1:]) {
		t.Errorf("JSON gives %q %q\nwant %q", e.Command, e.Args, odd)
	}
}

// TestClientConfigErrors: an unknown client is named with the known ones and the nearest
// suggested; bad input says what to give, without echoing the URL (it may hold the path
// secret).
func TestClientConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      serve.ClientConfigInput
		want    []string
		unknown bool
	}{
		{"typo", serve.ClientConfigInput{Client: "cluade", Command: testCmd},
			[]string{`unknown client "cluade"`, "claude, codex, cursor, vscode, gemini", `Did you mean "claude"?`}, true},
		{"spelled out", serve.ClientConfigInput{Client: "vs-code", Command: testCmd}, []string{`Did you mean "vscode"?`}, true},
		{"far", serve.ClientConfigInput{Client: "emacs", URL: testURL}, []string{"use one of claude"}, true},
		{"nothing to run", serve.ClientConfigInput{Client: "codex"}, []string{"no command", "no URL"}, false},
		{"bad name", serve.ClientConfigInput{Client: "codex", Name: "my.bridge", Command: testCmd}, []string{`"my.bridge"`, "letters, digits"}, false},
		{"bad url", serve.ClientConfigInput{Client: "gemini", URL: "ftp://127.0.0.1/mcp/Zk3pathsecret"}, []string{"not an http:// or https:// URL"}, false},
		{"bad token var", serve.ClientConfigInput{Client: "vscode", URL: testURL, TokenEnv: "MY-TOKEN"}, []string{`"MY-TOKEN"`, "environment variable name"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, hint, err := serve.ClientConfig(tt.in)
			if err == nil {
				t.Fatalf("no error; got %q %q", text, hint)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "Zk3pathsecret") {
				t.Errorf("error echoes the URL's secret: %v", err)
			}
			var uc *serve.UnknownClientError
			if errors.As(err, &uc) != tt.unknown {
				t.Errorf("errors.As(UnknownClientError) = %v, want %v", !tt.unknown, tt.unknown)
			}
		})
	}
}

func modeInput(t *testing.T, name string) serve.ClientConfigInput {
	for _, m := range modes {
		if m.name == name {
			return m.in
		}
	}
	t.Fatalf("no mode %q", name)
	return serve.ClientConfigInput{}
}

func strictJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not plain JSON: %v\n%s", err, text)
	}
	return v
}

// shellArgv is the argv a real POSIX shell makes of line.
func shellArgv(t *testing.T, sh, line string) []string {
	t.Helper()
	out, err := exec.Command(sh, "-c", "set -- "+line+"printf '%s\\0' \"$@\"").Output()
	if err != nil {
		t.Fatalf("%s: %v", sh, err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

// splitShell splits a POSIX shell line into words, refusing any character a shell would
// expand or treat as syntax outside quotes, so quoting that leans on luck fails here.
func splitShell(line string) ([]string, error) {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,@"
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed single quote at %d", i)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += 1 + end
			inWord = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		case strings.IndexByte(plain, c) >= 0 || c >= 0x80:
			cur.WriteByte(c)
			inWord = true
		default:
			return nil, fmt.Errorf("unquoted %q at %d", c, i)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
