package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/config"
)

// importSource copies testdata/import/<fixture> to a temp file (with PROJECT_DIR replaced
// by the env's project) and returns its path.
func importSource(t *testing.T, e *env, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "import", fixture))
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "PROJECT_DIR", e.project))
	p := filepath.Join(t.TempDir(), fixture)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadGlobal reads the env's global file the way the bridge does, with no variable set.
func loadGlobal(t *testing.T, e *env) (*config.Config, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.home, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	return config.Load(config.Options{ZotHome: e.home, LookupEnv: func(string) (string, bool) { return "", false }}), string(data)
}

func srv(t *testing.T, c *config.Config, name string) *config.Server {
	t.Helper()
	s, ok := c.Server(name)
	if !ok {
		t.Fatalf("server %q not imported; have %v", name, c.Servers)
	}
	return s
}

func TestCLIImport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		client, fixture string
		wantOut         []string // substrings of stdout
		check           func(t *testing.T, c *config.Config)
	}{
		{"claude", "claude.json", []string{
			`secret: server "tracker" headers.Authorization was a literal value; not copied, the entry reads ${TRACKER_AUTHORIZATION}`,
			`secret: server "local-db" env.DB_PASSWORD was a literal value; not copied, the entry reads ${DB_PASSWORD}`,
		}, func(t *testing.T, c *config.Config) {
			if s := srv(t, c, "notes"); s.Transport != config.TransportStdio || s.Raw.Args[2] != "${HOME}/notes" {
				t.Errorf("notes: %s %q", s.Transport, s.Raw.Args)
			}
			if s := srv(t, c, "tracker"); s.Transport != config.TransportStreamableHTTP || s.Raw.Headers["Authorization"] != "Bearer ${TRACKER_AUTHORIZATION}" {
				t.Errorf("tracker: %s %q", s.Transport, s.Raw.Headers)
			}
			if s := srv(t, c, "local-db"); s.Raw.Env["DB_PASSWORD"] != "${DB_PASSWORD}" || s.Raw.Args[0] != "--readonly" {
				t.Errorf("local-db (the project's local server): %q %q", s.Raw.Env, s.Raw.Args)
			}
		}},
		{"cursor", "cursor.json", []string{
			`server "gh" env.GITHUB_PERSONAL_ACCESS_TOKEN was a literal value; not copied, the entry reads ${GITHUB_PERSONAL_ACCESS_TOKEN}`,
			`server "docs" url?api_key was a literal value; not copied, the entry reads ${DOCS_API_KEY}`,
		}, func(t *testing.T, c *config.Config) {
			if s := srv(t, c, "gh"); s.Raw.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "${GITHUB_PERSONAL_ACCESS_TOKEN}" || len(s.Raw.Args) != 6 {
				t.Errorf("gh: %q %q", s.Raw.Env, s.Raw.Args)
			}
			if s := srv(t, c, "docs"); s.Raw.URL != "https://docs.example.test/mcp?team=core&api_key=${DOCS_API_KEY}" || s.Raw.Headers["X-Team"] != "${env:TEAM_ID}" {
				t.Errorf("docs: url and headers not as expected: %q", s.Raw.Headers)
			}
		}},
		{"vscode", "vscode.json", []string{
			`input "search-key": the bridge never prompts; export its value as MCP_INPUT_SEARCH_KEY`,
			`server "search": envFile dropped: not read`,
		}, func(t *testing.T, c *config.Config) {
			if s := srv(t, c, "search"); s.Raw.Env["SEARCH_API_KEY"] != "${input:search-key}" {
				t.Errorf("search: %q", s.Raw.Env)
			}
			if s := srv(t, c, "remote"); s.Transport != config.TransportStreamableHTTP || s.Raw.Headers["Authorization"] != "Bearer ${input:search-key}" {
				t.Errorf("remote: %s %q", s.Transport, s.Raw.Headers)
			}
		}},
		{"gemini", "gemini.json", []string{
			`server "github" headers.Authorization was a literal value; not copied, the entry reads ${GITHUB_AUTHORIZATION}`,
			`server "github": trust dropped: not used (Gemini/Qwen)`,
			`server "py": description dropped`,
		}, func(t *testing.T, c *config.Config) {
			s := srv(t, c, "github")
			if s.Transport != config.TransportStreamableHTTP || s.TransportGuessed || s.Raw.Headers["Authorization"] != "token ${GITHUB_AUTHORIZATION}" ||
				s.RequestTimeout != 5*time.Second || !reflect.DeepEqual(s.IncludeTools, []string{"get_*", "list_*"}) || !reflect.DeepEqual(s.ExcludeTools, []string{"delete_repo"}) {
				t.Errorf("github: %s guessed=%v %q %v %v %v", s.Transport, s.TransportGuessed, s.Raw.Headers, s.RequestTimeout, s.IncludeTools, s.ExcludeTools)
			}
			if p := srv(t, c, "py"); p.Raw.Env["API_KEY"] != "${MY_API_TOKEN}" || p.Raw.Cwd != "./tools" {
				t.Errorf("py: %q %q", p.Raw.Env, p.Raw.Cwd)
			}
		}},
		{"codex", "codex.toml", []string{
			`server "docs" args[3] was a literal value; not copied, the entry reads ${DOCS_API_KEY}`,
			`server "figma" headers.X-Secret was a literal value; not copied, the entry reads ${FIGMA_X_SECRET}`,
		}, func(t *testing.T, c *config.Config) {
			d := srv(t, c, "docs")
			if got := d.EnvPolicy.String(); got != "minimal + HTTPS_PROXY" {
				t.Errorf("docs: Codex env_vars became envPolicy %q, want the minimal set plus HTTPS_PROXY", got)
			}
			if d.Raw.Args[3] != "${DOCS_API_KEY}" || d.Raw.Args[2] != "--api-key" || d.Raw.Env["LOG_LEVEL"] != "debug" || d.Raw.Env["DOCS_SECRET"] != "${DOCS_SECRET}" ||
				d.ConnectTimeout != 20*time.Second || d.RequestTimeout != 90*time.Second ||
				!reflect.DeepEqual(d.IncludeTools, []string{"search", "fetch_*"}) || !reflect.DeepEqual(d.ExcludeTools, []string{"fetch_raw"}) {
				t.Errorf("docs: %q %q %v %v %v %v", d.Raw.Args, d.Raw.Env, d.ConnectTimeout, d.RequestTimeout, d.IncludeTools, d.ExcludeTools)
			}
			if ok, _ := d.ToolAllowed("fetch_raw"); ok {
				t.Error("Codex's disabled_tools did not become excludeTools")
			}
			f := srv(t, c, "figma")
			// A literal that is not a credential (X-Team) is kept as written.
			want := map[string]string{"Authorization": "Bearer ${FIGMA_TOKEN}", "X-Org": "${FIGMA_ORG}", "X-Secret": "${FIGMA_X_SECRET}", "X-Team": "acme"}
			if f.Enabled || f.Transport != config.TransportStreamableHTTP || !reflect.DeepEqual(f.Raw.Headers, want) {
				t.Errorf("figma: enabled=%v %s %q", f.Enabled, f.Transport, f.Raw.Headers)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			e := newEnv(t)
			// An existing file with a comment and a server: both must survive.
			existing := "// my servers\n{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"x\"} // keep me\n  }\n}\n"
			if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), []byte(existing), 0o600); err != nil {
				t.Fatal(err)
			}
			src := importSource(t, e, tt.fixture)
			out, code := e.run("import", tt.client, "--from", src, "--cwd", e.project)
			if code != 0 {
				t.Fatalf("import exited %d:\n%s", code, out)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			c, file := loadGlobal(t, e)
			if strings.Contains(out, "SECRETVALUE") || strings.Contains(file, "SECRETVALUE") {
				t.Fatalf("a literal secret was copied or printed:\nstdout+stderr:\n%s\nfile:\n%s", out, file)
			}
			if !strings.Contains(file, "// my servers") || !strings.Contains(file, "// keep me") {
				t.Fatalf("comments of the existing file were lost:\n%s", file)
			}
			srv(t, c, "mine")
			tt.check(t, c)
		})
	}
}

// --include-secrets copies literal values (and still never prints them); --dry-run writes
// nothing and shows no secret either.
func TestCLIImportSecretsAndDryRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := importSource(t, e, "cursor.json")
	out, code := e.run("import", "cursor", "--from", src, "--dry-run", "--include-secrets")
	if code != 0 || !strings.Contains(out, "dry run, nothing is written") || strings.Contains(out, "SECRETVALUE") {
		t.Fatalf("dry run (%d):\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.home, "mcp.json")); err == nil {
		t.Fatal("a dry run wrote the file")
	}
	out, code = e.run("import", "cursor", "--from", src, "--include-secrets")
	if code != 0 || strings.Contains(out, "SECRETVALUE") || !strings.Contains(out, `server "gh" env.GITHUB_PERSONAL_ACCESS_TOKEN copied as a literal value`) {
		t.Fatalf("import --include-secrets (%d):\n%s", code, out)
	}
	c, _ := loadGlobal(t, e)
	if s := srv(t, c, "gh"); s.Raw.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "ghp_SECRETVALUE0123456789abcdef" {
		t.Fatal("--include-secrets did not copy the literal value")
	}
	// A second import keeps the servers that exist (here they differ: the first copied the
	// literal secrets); --force replaces them.
	out, code = e.run("import", "cursor", "--from", src)
	if code != 0 || !strings.Contains(out, "= gh: kept the different entry of that name already in") || !strings.Contains(out, "Imported 0 of 2 servers; 2 kept as they were.") {
		t.Fatalf("re-import (%d):\n%s", code, out)
	}
	out, code = e.run("import", "cursor", "--from", src, "--force")
	if code != 0 || !strings.Contains(out, "~ gh (replaced)") {
		t.Fatalf("re-import --force (%d):\n%s", code, out)
	}
}

// TestCLIImportAgain: importing the same file twice says "already imported" per server,
// and the closing counts add up to the servers read.
func TestCLIImportAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := importSource(t, e, "codex.toml")
	if out, code := e.run("import", "codex", "--from", src); code != 0 || !strings.Contains(out, "Imported 2 of 2 servers. Check") {
		t.Fatalf("first import (%d):\n%s", code, out)
	}
	out, code := e.run("import", "codex", "--from", src)
	if code != 0 {
		t.Fatalf("second import exited %d:\n%s", code, out)
	}
	for _, want := range []string{"= docs: already imported", "= figma: already imported", "Imported 0 of 2 servers; 2 already imported."} {
		if !strings.Contains(out, want) {
			t.Errorf("second import lacks %q:\n%s", want, out)
		}
	}
}

// Without --from the client's default user-level file is read; --project writes the
// project's .zot/mcp.json.
func TestCLIImportDefaultPathAndProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := t.TempDir()
	e.vars = append(e.vars, "HOME="+home, "CODEX_HOME=")
	data, err := os.ReadFile(filepath.Join("testdata", "import", "gemini.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := e.run("import", "gemini", "--project", "--cwd", e.project)
	if code != 0 || !strings.Contains(out, filepath.Join(home, ".gemini", "settings.json")) {
		t.Fatalf("import gemini --project (%d):\n%s", code, out)
	}
	written, err := os.ReadFile(config.ProjectPath(e.project))
	if err != nil || !strings.Contains(string(written), `"github"`) || strings.Contains(string(written), "SECRETVALUE") {
		t.Fatalf("project file: %v\n%s", err, written)
	}
	if _, err := os.Stat(filepath.Join(e.home, "mcp.json")); err == nil {
		t.Fatal("--project wrote the global file too")
	}
	// The client's file is missing: a clear error, exit 1, nothing written.
	out, code = e.run("import", "codex")
	if code != 1 || !strings.Contains(out, filepath.Join(home, ".codex", "config.toml")+" not found; pass the file with --from FILE") {
		t.Fatalf("missing codex file (%d):\n%s", code, out)
	}
}

// Malformed sources and arguments: a clear error, nothing written, nothing lost.
func TestCLIImportBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"mcpServers": {"a": {"command": "x", "env": {"K": SECRETVALUE}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badTOML := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(badTOML, []byte("[mcp_servers.a]\ncommand = \"x\"\nenv = { K = SECRETVALUE }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "cursor", "--from", broken}, 1, "not valid JSON/JSONC; fix the syntax first (nothing was imported)"},
		{[]string{"import", "codex", "--from", badTOML}, 1, "not valid TOML (line 3); fix the syntax first (nothing was imported)"},
		{[]string{"import", "zed", "--from", broken}, 1, `unknown client "zed"; use one of claude, cursor, vscode, gemini, codex`},
		{[]string{"import"}, 2, "usage: mcp-bridge import"},
		{[]string{"import", "cursor", "--global", "--project"}, 2, "usage: mcp-bridge import"},
	} {
		out, code := e.run(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) || strings.Contains(out, "SECRETVALUE") {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, "mcp.json")); err == nil {
		t.Fatal("a failed import wrote the file")
	}
}

// A typo in a server entry is warned about exactly once, naming the closest known field.
func TestCLITypoWarnedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cline := e.fake()
	cline["autoApprove"] = []string{"echo"}
	e.write(map[string]any{
		"typo":   map[string]any{"comand": "x", "url": "http://127.0.0.1:1/mcp", "idleTimout": 5},
		"cline":  cline,
		"unused": map[string]any{"command": "x", "enabled": false},
	}, nil)
	out, _ := e.run("doctor")
	for _, w := range []string{
		`server "typo": comand: unknown field, ignored; did you mean "command"?`,
		`server "typo": idleTimout: unknown field, ignored; did you mean "idleTimeout"?`,
		`server "cline": autoApprove: not used (Cline's per-tool auto-approval)`,
	} {
		if n := strings.Count(out, w); n != 1 {
			t.Errorf("%q appears %d times, want once:\n%s", w, n, out)
		}
	}
	if n := strings.Count(out, "comand"); n != 1 {
		t.Errorf("the typo is mentioned %d times, want once:\n%s", n, out)
	}
}
