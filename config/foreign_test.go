package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadOne loads a global file holding one server entry "s" and returns it with the
// problems about it.
func loadOne(t *testing.T, entry string, env map[string]string) (*Server, []Problem) {
	t.Helper()
	c, _ := setup(t, `{"mcpServers": {"s": `+entry+`}}`, "", env)
	s := mustServer(t, c, "s")
	return s, c.Problems
}

func TestOtherClientsSpellings(t *testing.T) {
	tests := []struct {
		name        string
		entry       string
		transport   Transport
		guessed     bool
		url         string
		request     time.Duration
		wantErr     string // substring of Err; "" = usable
		wantWarning string // substring of the only warning; "" = none
	}{
		{name: "gemini httpUrl is streamable HTTP", entry: `{"httpUrl": "http://127.0.0.1:1/mcp"}`,
			transport: TransportStreamableHTTP, url: "http://127.0.0.1:1/mcp", request: DefaultRequestTimeout},
		{name: "windsurf serverUrl is guessed like url", entry: `{"serverUrl": "http://127.0.0.1:1/mcp"}`,
			transport: TransportStreamableHTTP, guessed: true, url: "http://127.0.0.1:1/mcp", request: DefaultRequestTimeout},
		{name: "cline transportType sse", entry: `{"url": "http://127.0.0.1:1/sse", "transportType": "sse"}`,
			transport: TransportSSE, url: "http://127.0.0.1:1/sse", request: DefaultRequestTimeout},
		{name: "cline type streamableHttp", entry: `{"url": "http://127.0.0.1:1/mcp", "type": "streamableHttp"}`,
			transport: TransportStreamableHTTP, url: "http://127.0.0.1:1/mcp", request: DefaultRequestTimeout},
		{name: "gemini timeout in milliseconds", entry: `{"command": "x", "timeout": 30000}`,
			transport: TransportStdio, request: 30 * time.Second},
		{name: "cline timeout in seconds", entry: `{"command": "x", "timeout": 90}`,
			transport: TransportStdio, request: 90 * time.Second, wantWarning: `timeout: read as 90 seconds (Cline's unit)`},
		{name: "requestTimeout wins over timeout", entry: `{"command": "x", "timeout": 5000, "requestTimeout": 7}`,
			transport: TransportStdio, request: 7 * time.Second, wantWarning: `timeout: ignored: "requestTimeout" is set too`},
		{name: "url and httpUrl both", entry: `{"url": "http://a/", "httpUrl": "http://b/"}`,
			wantErr: `httpUrl: conflicts with "url"; keep only one of them`},
		{name: "httpUrl with type sse", entry: `{"httpUrl": "http://a/", "type": "sse"}`,
			wantErr: `type: "sse" conflicts with "httpUrl", which means streamable-http`},
		{name: "bad transportType", entry: `{"url": "http://a/", "transportType": "carrier-pigeon"}`,
			wantErr: `transportType: unknown transport "carrier-pigeon"`},
		{name: "httpUrl not a string", entry: `{"httpUrl": 3}`, wantErr: `httpUrl: must be a string`},
		{name: "httpUrl not a URL", entry: `{"httpUrl": "ftp://x"}`, wantErr: `httpUrl: is not a valid http:// or https:// URL`},
		{name: "timeout negative", entry: `{"command": "x", "timeout": -5}`, wantErr: `timeout: must be a positive number of milliseconds`},
		{name: "timeout a string", entry: `{"command": "x", "timeout": "30s"}`, wantErr: `timeout: must be a positive number of milliseconds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems := loadOne(t, tt.entry, nil)
			if tt.wantErr != "" {
				if !strings.Contains(s.Err, tt.wantErr) {
					t.Fatalf("Err = %q, want it to contain %q", s.Err, tt.wantErr)
				}
				return
			}
			if s.Err != "" {
				t.Fatalf("unexpected Err %q", s.Err)
			}
			if s.Transport != tt.transport || s.TransportGuessed != tt.guessed || s.URL != tt.url || s.RequestTimeout != tt.request {
				t.Fatalf("got transport %q guessed %v url %q request %v", s.Transport, s.TransportGuessed, s.URL, s.RequestTimeout)
			}
			var warns []string
			for _, p := range problems {
				if !p.Warning() {
					t.Errorf("unexpected error problem: %s", p)
				}
				warns = append(warns, p.String())
			}
			if tt.wantWarning == "" && len(warns) > 0 || tt.wantWarning != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.wantWarning)) {
				t.Fatalf("warnings = %q, want one containing %q", warns, tt.wantWarning)
			}
		})
	}
}

func TestOtherClientsVariables(t *testing.T) {
	env := map[string]string{"TOKEN": "tok", "MCP_INPUT_API_KEY": "k3y", "MCP_INPUT_X_Y_Z": "xyz"}
	proj := "/work/my-proj"
	tests := []struct {
		name       string
		in         string
		projectDir string
		want       string
		wantWhy    string // substring of the only "missing" message
		wantBad    string // substring of the malformed reason
	}{
		{name: "env prefix", in: "Bearer ${env:TOKEN}", want: "Bearer tok"},
		{name: "env prefix with default", in: "${env:NOPE:-d}", want: "d"},
		{name: "workspaceFolder", in: "${workspaceFolder}/src", projectDir: proj, want: "/work/my-proj/src"},
		{name: "workspaceFolderBasename", in: "name=${workspaceFolderBasename}", projectDir: proj, want: "name=my-proj"},
		{name: "userHome", in: "${userHome}/.cache", want: "/home/u/.cache"},
		{name: "input", in: "${input:api-key}", want: "k3y"},
		{name: "input with dots", in: "${input:x.y.z}", want: "xyz"},
		{name: "input missing", in: "${input:gh-token}", wantWhy: `input "gh-token" ("GitHub token") has no value: set the environment variable MCP_INPUT_GH_TOKEN`},
		{name: "workspaceFolder without a project", in: "${workspaceFolder}", wantWhy: "names the project directory, and there is none here"},
		{name: "env var named like a predefined one is not read", in: "${workspaceFolder:-none}", want: "none"},
		{name: "unsupported kind", in: "${config:editor.tabSize}", wantBad: "unsupported ${config:...} reference"},
		{name: "workspaceFolder of a named root", in: "${workspaceFolder:web}", wantBad: "unsupported ${workspaceFolder:...} reference"},
		{name: "empty input", in: "${input:}", wantBad: "malformed ${input:ID}"},
		{name: "input with a space", in: "${input:a b}", wantBad: "malformed ${input:ID}"},
		{name: "input with a default", in: "${input:a:-x}", wantBad: "malformed ${input:ID}"},
		{name: "empty env", in: "${env:}", wantBad: "not a variable name"},
		{name: "unterminated env", in: "${env:TOKEN", wantBad: "no closing }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &vars{lookup: fakeEnv(env), projectDir: tt.projectDir, home: "/home/u", inputs: map[string]string{"gh-token": "GitHub token"}}
			r := v.expand(tt.in)
			switch {
			case tt.wantBad != "":
				if r.malformed < 0 || !strings.Contains(r.bad, tt.wantBad) {
					t.Fatalf("malformed=%d bad=%q, want %q", r.malformed, r.bad, tt.wantBad)
				}
			case tt.wantWhy != "":
				if r.malformed >= 0 || len(r.why) != 1 || !strings.Contains(r.why[0], tt.wantWhy) {
					t.Fatalf("why = %q (malformed %d), want %q", r.why, r.malformed, tt.wantWhy)
				}
			default:
				if r.malformed >= 0 || len(r.missing) > 0 || r.value != tt.want {
					t.Fatalf("expand(%q) = %q missing=%v malformed=%d (%s), want %q", tt.in, r.value, r.missing, r.malformed, r.bad, tt.want)
				}
			}
		})
	}
}

func TestInputEnvVar(t *testing.T) {
	for in, want := range map[string]string{
		"api-key":      "MCP_INPUT_API_KEY",
		"githubToken":  "MCP_INPUT_GITHUBTOKEN",
		"perplexity.k": "MCP_INPUT_PERPLEXITY_K",
		"a_1":          "MCP_INPUT_A_1",
	} {
		if got := InputEnvVar(in); got != want {
			t.Errorf("InputEnvVar(%q) = %q, want %q", in, got, want)
		}
	}
}

// A missing input or a malformed reference breaks only its server, names the field and
// the variable to set, and never shows another field's secret value.
func TestOtherClientsVariablesInServers(t *testing.T) {
	const secret = "s3cr3t-in-env"
	c, _ := setup(t, `{
	  "inputs": [{"type": "promptString", "id": "pat", "description": "Personal token", "password": true}],
	  "servers": {
	    "needs-input": {"command": "x", "env": {"TOKEN": "${input:pat}", "OTHER": "`+secret+`"}},
	    "bad-ref": {"command": "x", "args": ["${command:pick}"]},
	    "fine": {"command": "${userHome}/bin/x", "args": ["${workspaceFolder}"]}
	  }}`, "", nil)
	s := mustServer(t, c, "needs-input")
	if want := `env.TOKEN: input "pat" ("Personal token") has no value: set the environment variable MCP_INPUT_PAT`; !strings.Contains(s.Err, want) {
		t.Fatalf("Err = %q, want %q", s.Err, want)
	}
	if b := mustServer(t, c, "bad-ref"); !strings.Contains(b.Err, "args[0]: malformed ${...} reference at offset 0 (unsupported ${command:...} reference); use ${NAME}") {
		t.Fatalf("bad-ref Err = %q", b.Err)
	}
	f := mustServer(t, c, "fine")
	home, _ := os.UserHomeDir()
	if f.Err != "" || f.Command != home+"/bin/x" || len(f.Args) != 1 || !filepath.IsAbs(f.Args[0]) {
		t.Fatalf("fine: err %q command %q args %q", f.Err, f.Command, f.Args)
	}
	for _, p := range c.Problems {
		if strings.Contains(p.String(), secret) {
			t.Fatalf("a problem shows a secret: %s", p)
		}
	}
}

func TestToolFilters(t *testing.T) {
	tests := []struct {
		name    string
		entry   string
		allowed map[string]bool
		why     string // substring of why for the first hidden tool in "hidden"
		hidden  string
		wantErr string
	}{
		{name: "exclude globs", entry: `{"command": "x", "excludeTools": ["write_file", "edit_*"]}`,
			allowed: map[string]bool{"read_file": true, "write_file": false, "edit_file": false, "list_directory": true},
			hidden:  "edit_file", why: `matched by "excludeTools" pattern "edit_*" of server "s"`},
		{name: "include only", entry: `{"command": "x", "includeTools": ["read_*", "list_directory"]}`,
			allowed: map[string]bool{"read_file": true, "read_text_file": true, "write_file": false, "list_directory": true},
			hidden:  "write_file", why: `not matched by any "includeTools" pattern`},
		{name: "exclude wins over include", entry: `{"command": "x", "includeTools": ["*"], "excludeTools": ["write_file"]}`,
			allowed: map[string]bool{"read_file": true, "write_file": false}, hidden: "write_file", why: "excludeTools"},
		{name: "disabledTools still exact", entry: `{"command": "x", "disabledTools": ["read_*", "echo"]}`,
			allowed: map[string]bool{"read_file": true, "echo": false}, hidden: "echo", why: `listed in "disabledTools"`},
		{name: "bad pattern", entry: `{"command": "x", "excludeTools": ["[unclosed"]}`, wantErr: `excludeTools[0]: bad glob pattern "[unclosed"`},
		{name: "not a list", entry: `{"command": "x", "includeTools": "read_file"}`, wantErr: `includeTools: must be an array of strings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := loadOne(t, tt.entry, nil)
			if tt.wantErr != "" {
				if !strings.Contains(s.Err, tt.wantErr) {
					t.Fatalf("Err = %q, want %q", s.Err, tt.wantErr)
				}
				return
			}
			for tool, want := range tt.allowed {
				if got, _ := s.ToolAllowed(tool); got != want {
					t.Errorf("ToolAllowed(%q) = %v, want %v", tool, got, want)
				}
			}
			if _, why := s.ToolAllowed(tt.hidden); !strings.Contains(why, tt.why) || !strings.Contains(why, s.Source) {
				t.Errorf("why(%q) = %q, want %q and the file", tt.hidden, why, tt.why)
			}
		})
	}
}

func TestUnknownAndIgnoredFieldsWarnOnce(t *testing.T) {
	tests := []struct {
		name  string
		entry string
		want  []string // each warning, in order
	}{
		{name: "typo command", entry: `{"comand": "x", "url": "http://a/"}`, want: []string{`comand: unknown field, ignored; did you mean "command"?`}},
		{name: "typo idleTimeout", entry: `{"command": "x", "idleTimout": 5}`, want: []string{`idleTimout: unknown field, ignored; did you mean "idleTimeout"?`}},
		{name: "far from anything", entry: `{"command": "x", "zzzzzzzz": 1}`, want: []string{`zzzzzzzz: unknown field, ignored`}},
		{name: "cline autoApprove", entry: `{"command": "x", "autoApprove": ["read_file"]}`, want: []string{`autoApprove: not used (Cline's per-tool auto-approval)`}},
		{name: "gemini trust oauth description", entry: `{"command": "x", "trust": true, "oauth": {"enabled": true}, "description": "d"}`,
			want: []string{`description: not shown`, `oauth: not used`, `trust: not used (Gemini/Qwen)`}},
		{name: "roo alwaysAllow", entry: `{"command": "x", "alwaysAllow": []}`, want: []string{`alwaysAllow: not used`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems := loadOne(t, tt.entry, nil)
			if s.Err != "" {
				t.Fatalf("a warning must not break the server: Err %q", s.Err)
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("problems = %v, want %d", problems, len(tt.want))
			}
			for i, p := range problems {
				if !p.Warning() || !strings.Contains(p.String(), tt.want[i]) || !strings.HasPrefix(p.String(), "warning: ") {
					t.Errorf("problem %d = %q, want a warning containing %q", i, p, tt.want[i])
				}
			}
		})
	}
}

// writeFiles writes path → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProjectFilesOfOtherClients(t *testing.T) {
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	writeFiles(t, home, map[string]string{"mcp.json": `{"mcpServers": {"g": {"command": "global"}, "clash": {"command": "global"}}}`})
	writeFiles(t, proj, map[string]string{
		".vscode/mcp.json": `{"inputs": [], "servers": {"vs": {"type": "stdio", "command": "vs"}, "clash": {"command": "vscode"}}}`,
		".cursor/mcp.json": `{"mcpServers": {"cur": {"url": "http://127.0.0.1:1/mcp"}, "clash": {"command": "cursor"}}}`,
		".mcp.json":        `{"toolExposure": "direct", "mcpServers": {"cc": {"type": "http", "url": "http://127.0.0.1:1/mcp"}, "clash": {"command": "claude"}}}`,
		".zot/mcp.json":    `{"mcpServers": {"clash": {"command": "zot"}}}`,
	})
	c := Load(Options{ZotHome: home, ProjectDir: proj, LookupEnv: fakeEnv(nil)})
	want := map[string]struct{ source, scope string }{
		"g":     {filepath.Join(home, "mcp.json"), ScopeGlobal},
		"vs":    {filepath.Join(proj, ".vscode", "mcp.json"), ScopeProject},
		"cur":   {filepath.Join(proj, ".cursor", "mcp.json"), ScopeProject},
		"cc":    {filepath.Join(proj, ".mcp.json"), ScopeProject},
		"clash": {filepath.Join(proj, ".zot", "mcp.json"), ScopeProject},
	}
	if len(c.Servers) != len(want) {
		t.Fatalf("servers = %v", names(c))
	}
	for n, w := range want {
		s := mustServer(t, c, n)
		if s.Source != w.source || s.Scope != w.scope || s.Err != "" {
			t.Errorf("%s: source %q scope %q err %q, want %q %q", n, s.Source, s.Scope, s.Err, w.source, w.scope)
		}
	}
	if s := mustServer(t, c, "clash"); s.Command != "zot" {
		t.Errorf(".zot/mcp.json must win a name clash; got command %q", s.Command)
	}
	if c.ToolExposure != ToolExposureAuto {
		t.Errorf("a foreign project file set toolExposure to %q", c.ToolExposure)
	}
	var clashes, exposure int
	for _, p := range c.Problems {
		if !p.Warning() {
			t.Errorf("unexpected error: %s", p)
		}
		if p.Server == "clash" && strings.Contains(p.Message, "also defined in") {
			clashes++
		}
		if p.Field == "toolExposure" && strings.Contains(p.Message, "read only from the global file") {
			exposure++
		}
	}
	if clashes != 3 || exposure != 1 {
		t.Errorf("clash warnings %d (want 3), toolExposure warnings %d (want 1): %v", clashes, exposure, problemStrings(c))
	}
	if len(c.Files) != 5 {
		t.Errorf("files = %+v, want global and the four project files", c.Files)
	}
	short := map[string]string{"g": "global", "vs": ".vscode/mcp.json", "cur": ".cursor/mcp.json", "cc": ".mcp.json", "clash": ".zot/mcp.json"}
	for n, w := range short {
		if got := mustServer(t, c, n).ShortSource(); got != w {
			t.Errorf("%s: ShortSource %q, want %q", n, got, w)
		}
	}
}

// A broken file of another client is reported with its path; every other file and
// server is still read.
func TestBrokenOtherClientFileLosesNothing(t *testing.T) {
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	writeFiles(t, home, map[string]string{"mcp.json": `{"mcpServers": {"g": {"command": "x"}}}`})
	writeFiles(t, proj, map[string]string{
		".cursor/mcp.json": `{"mcpServers": {"cur": {"command": "x",}}`,
		".mcp.json":        `{"mcpServers": {"cc": {"command": "x"}}}`,
		".vscode/mcp.json": `{"inputs": {"id": "not-a-list"}, "servers": {"vs": {"command": "${input:k}"}}}`,
	})
	c := Load(Options{ZotHome: home, ProjectDir: proj, LookupEnv: fakeEnv(nil)})
	if got := names(c); strings.Join(got, ",") != "cc,g,vs" {
		t.Fatalf("servers = %v", got)
	}
	var cursorErr, inputsErr bool
	for _, f := range c.Files {
		if f.Path == filepath.Join(proj, ".cursor", "mcp.json") && strings.Contains(f.Err, "not valid JSON/JSONC") {
			cursorErr = true
		}
	}
	for _, p := range c.Problems {
		if p.Field == "inputs" && strings.Contains(p.Message, "must be an array") {
			inputsErr = true
		}
	}
	if !cursorErr || !inputsErr {
		t.Fatalf("files %+v problems %v", c.Files, problemStrings(c))
	}
	if s := mustServer(t, c, "vs"); !strings.Contains(s.Err, "MCP_INPUT_K") {
		t.Fatalf("vs Err = %q", s.Err)
	}
}
