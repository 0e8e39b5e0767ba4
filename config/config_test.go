package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeEnv returns a LookupEnv backed by m.
func fakeEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// fixture holds the directories of one test run.
type fixture struct {
	zotHome, projectDir string
}

func (f fixture) global() string  { return GlobalPath(f.zotHome) }
func (f fixture) project() string { return ProjectPath(f.projectDir) }

// setup writes the global and project files ("" = no file) and loads them.
func setup(t *testing.T, global, project string, env map[string]string) (*Config, fixture) {
	t.Helper()
	root := t.TempDir()
	f := fixture{zotHome: filepath.Join(root, "zothome"), projectDir: filepath.Join(root, "proj")}
	write := func(path, content string) {
		if content == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(f.global(), global)
	write(f.project(), project)
	c := Load(Options{ZotHome: f.zotHome, ProjectDir: f.projectDir, LookupEnv: fakeEnv(env)})
	return c, f
}

func mustServer(t *testing.T, c *Config, name string) *Server {
	t.Helper()
	s, ok := c.Server(name)
	if !ok {
		t.Fatalf("server %q not found; servers=%v problems=%v", name, names(c), c.Problems)
	}
	return s
}

func names(c *Config) []string {
	var out []string
	for _, s := range c.Servers {
		out = append(out, s.Name)
	}
	return out
}

func problemStrings(c *Config) []string {
	var out []string
	for _, p := range c.Problems {
		out = append(out, p.String())
	}
	return out
}

func TestFilesAndFormats(t *testing.T) {
	tests := []struct {
		name            string
		global, project string
		wantServers     []string
		wantFound       [2]bool
		wantProblems    int
	}{
		{name: "no files", wantServers: nil, wantFound: [2]bool{false, false}},
		{
			name: "jsonc comments and trailing commas",
			global: `{
				// line comment
				"mcpServers": {
					/* block comment */
					"a": {"command": "x", "args": ["1", "2",],},
				},
			}`,
			wantServers: []string{"a"},
			wantFound:   [2]bool{true, false},
		},
		{
			name:        "vscode servers key",
			project:     `{"servers": {"v": {"type": "stdio", "command": "x"}}}`,
			wantServers: []string{"v"},
			wantFound:   [2]bool{false, true},
		},
		{
			name:        "mcpServers wins over servers",
			global:      `{"mcpServers": {"m": {"command": "x"}}, "servers": {"v": {"command": "x"}}}`,
			wantServers: []string{"m"},
			wantFound:   [2]bool{true, false},
		},
		{
			name:        "empty file and BOM",
			global:      "  \n",
			project:     "\xef\xbb\xbf{\"mcpServers\": {\"b\": {\"command\": \"x\"}}}",
			wantServers: []string{"b"},
			wantFound:   [2]bool{true, true},
		},
		{
			name:        "no mcpServers key",
			global:      `{"other": 1}`,
			wantServers: nil,
			wantFound:   [2]bool{true, false},
		},
		{
			// Ignored, each with one warning (description, inputs, envFile); none breaks the server.
			name:         "unknown fields ignored",
			global:       `{"mcpServers": {"a": {"command": "x", "description": "hi", "inputs": [1], "envFile": 3}}, "extra": true}`,
			wantServers:  []string{"a"},
			wantFound:    [2]bool{true, false},
			wantProblems: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := setup(t, tt.global, tt.project, nil)
			if got := names(c); !reflect.DeepEqual(got, tt.wantServers) {
				t.Errorf("servers = %v, want %v", got, tt.wantServers)
			}
			if len(c.Problems) != tt.wantProblems {
				t.Errorf("problems = %v, want %d", problemStrings(c), tt.wantProblems)
			}
			wantFiles := []FileStatus{
				{Path: f.global(), Scope: ScopeGlobal, Found: tt.wantFound[0]},
				{Path: f.project(), Scope: ScopeProject, Found: tt.wantFound[1]},
			}
			if !reflect.DeepEqual(c.Files, wantFiles) {
				t.Errorf("files = %+v, want %+v", c.Files, wantFiles)
			}
			for _, s := range c.Servers {
				if !s.Usable() {
					t.Errorf("server %q not usable: %s", s.Name, s.Err)
				}
			}
		})
	}
}

func TestNoDirs(t *testing.T) {
	c := Load(Options{LookupEnv: fakeEnv(nil)})
	if len(c.Files) != 0 || len(c.Servers) != 0 || len(c.Problems) != 0 || c.ToolExposure != "auto" {
		t.Fatalf("unexpected config: %+v", c)
	}
}

func TestSameFileLoadedOnce(t *testing.T) {
	root := t.TempDir()
	zotHome := filepath.Join(root, ".zot")
	if err := os.MkdirAll(zotHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(GlobalPath(zotHome), []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Load(Options{ZotHome: zotHome, ProjectDir: root, LookupEnv: fakeEnv(nil)})
	if len(c.Files) != 1 || c.Files[0].Scope != ScopeGlobal {
		t.Fatalf("files = %+v, want only the global file", c.Files)
	}
	if s := mustServer(t, c, "a"); s.Scope != ScopeGlobal {
		t.Errorf("scope = %q", s.Scope)
	}
}

func TestToolExposure(t *testing.T) {
	tests := []struct {
		name            string
		global, project string
		want            string
		wantSource      string // "global", "project" or ""
		wantProblem     string
	}{
		{name: "default", want: "auto"},
		{name: "global", global: `{"toolExposure": "deferred"}`, want: "deferred", wantSource: "global"},
		{name: "project cannot override", global: `{"toolExposure": "deferred"}`, project: `{"toolExposure": "direct"}`, want: "deferred", wantSource: "global",
			wantProblem: "toolExposure: ignored: settings are read only from the global file"},
		{name: "project alone cannot set it", project: `{"toolExposure": "direct"}`, want: "auto", wantProblem: "a project file cannot change them"},
		{name: "invalid value", global: `{"toolExposure": "sometimes"}`, want: "auto", wantProblem: `toolExposure: unknown value "sometimes"`},
		{name: "wrong type", global: `{"toolExposure": 3}`, want: "auto", wantProblem: "toolExposure: must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := setup(t, tt.global, tt.project, nil)
			if c.ToolExposure != tt.want {
				t.Errorf("ToolExposure = %q, want %q", c.ToolExposure, tt.want)
			}
			wantSource := map[string]string{"": "", "global": f.global(), "project": f.project()}[tt.wantSource]
			if c.ToolExposureSource != wantSource {
				t.Errorf("ToolExposureSource = %q, want %q", c.ToolExposureSource, wantSource)
			}
			ps := strings.Join(problemStrings(c), "\n")
			if tt.wantProblem == "" && ps != "" {
				t.Errorf("unexpected problems: %s", ps)
			}
			if tt.wantProblem != "" && !strings.Contains(ps, tt.wantProblem) {
				t.Errorf("problems %q do not contain %q", ps, tt.wantProblem)
			}
		})
	}
}

// TestProjectCannotChangeSettings: a project file's top-level settings (known or not) are
// ignored with one problem each; its servers still load. The global file's are used.
func TestProjectCannotChangeSettings(t *testing.T) {
	global := `{"trustProjectServers": true, "toolExposure": "proxy", "mcpServers": {"g": {"command": "g"}}}`
	project := `{
		"$schema": "https://example.com/schema.json",
		"toolExposure": "direct",
		"trustProjectServers": true,
		"envPolicy": "inherit",
		"inputs": [],
		"mcpServers": {"p": {"command": "p"}}
	}`
	tests := []struct {
		name         string
		global       string
		wantTrust    bool
		wantExposure string
	}{
		{"global opts out", global, true, "proxy"},
		{"no global file", "", false, "auto"},
		{"global says false", `{"trustProjectServers": false}`, false, "auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := setup(t, tt.global, project, nil)
			if c.TrustProjectServers != tt.wantTrust || c.ToolExposure != tt.wantExposure {
				t.Errorf("TrustProjectServers=%v ToolExposure=%q, want %v %q", c.TrustProjectServers, c.ToolExposure, tt.wantTrust, tt.wantExposure)
			}
			mustServer(t, c, "p")
			var fields []string
			for _, p := range c.Problems {
				if p.File != f.project() || !strings.Contains(p.Message, "read only from the global file") {
					t.Errorf("unexpected problem: %s", p)
					continue
				}
				fields = append(fields, p.Field)
			}
			if want := []string{"envPolicy", "toolExposure", "trustProjectServers"}; !reflect.DeepEqual(fields, want) {
				t.Errorf("ignored settings %v, want %v", fields, want)
			}
		})
	}
	c, _ := setup(t, `{"trustProjectServers": "yes"}`, "", nil)
	if c.TrustProjectServers || !strings.Contains(strings.Join(problemStrings(c), "\n"), "trustProjectServers: must be true or false") {
		t.Errorf("a non-boolean opt-out: TrustProjectServers=%v problems=%v", c.TrustProjectServers, problemStrings(c))
	}
}

// TestReplacesAndInstructions: a project entry that replaces a global one names the global
// file; instructions are read as written.
func TestReplacesAndInstructions(t *testing.T) {
	c, f := setup(t,
		`{"mcpServers": {"shared": {"command": "g"}, "g": {"command": "g", "instructions": "Use for X."}}}`,
		`{"mcpServers": {"shared": {"command": "p"}, "p": {"command": "p", "instructions": 5}}}`, nil)
	if s := mustServer(t, c, "shared"); s.Replaces != f.global() {
		t.Errorf("shared.Replaces = %q, want %q", s.Replaces, f.global())
	}
	for _, n := range []string{"g", "p"} {
		if s := mustServer(t, c, n); s.Replaces != "" {
			t.Errorf("%s.Replaces = %q, want empty", n, s.Replaces)
		}
	}
	if s := mustServer(t, c, "g"); s.Instructions != "Use for X." {
		t.Errorf("g.Instructions = %q", s.Instructions)
	}
	if s := mustServer(t, c, "p"); s.Usable() || !strings.Contains(s.Err, "instructions: must be a string") {
		t.Errorf("p with numeric instructions: usable=%v err=%q", s.Usable(), s.Err)
	}
}

func TestMerge(t *testing.T) {
	global := `{"mcpServers": {
		"shared": {"command": "global-cmd", "env": {"A": "1"}, "idleTimeout": 5},
		"onlyGlobal": {"command": "g"}
	}}`
	project := `{"mcpServers": {
		"shared": {"url": "https://example.com/mcp"},
		"onlyProject": {"command": "p"}
	}}`
	c, f := setup(t, global, project, nil)
	if got, want := names(c), []string{"onlyGlobal", "onlyProject", "shared"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("servers = %v, want %v", got, want)
	}
	tests := []struct {
		name, source, scope string
		transport           Transport
		command             string
		env                 map[string]string
		idle                time.Duration
	}{
		{name: "shared", source: f.project(), scope: ScopeProject, transport: TransportStreamableHTTP, idle: DefaultIdleTimeout},
		{name: "onlyGlobal", source: f.global(), scope: ScopeGlobal, transport: TransportStdio, command: "g", idle: DefaultIdleTimeout},
		{name: "onlyProject", source: f.project(), scope: ScopeProject, transport: TransportStdio, command: "p", idle: DefaultIdleTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustServer(t, c, tt.name)
			if s.Source != tt.source || s.Scope != tt.scope || s.Transport != tt.transport ||
				s.Command != tt.command || !reflect.DeepEqual(s.Env, tt.env) || s.IdleTimeout != tt.idle {
				t.Errorf("got %+v", *s)
			}
			if !s.Usable() {
				t.Errorf("not usable: %s", s.Err)
			}
		})
	}
}

func TestBrokenFiles(t *testing.T) {
	good := `{"mcpServers": {"%s": {"command": "x"}}}`
	tests := []struct {
		name            string
		global, project string
		wantServers     []string
		brokenScope     string
		wantMsg         string
	}{
		{
			name:        "broken project keeps global",
			global:      strings.Replace(good, "%s", "g", 1),
			project:     `{"mcpServers": {"p": {"command": "x"`,
			wantServers: []string{"g"},
			brokenScope: ScopeProject,
			wantMsg:     "not valid JSON/JSONC",
		},
		{
			name:        "broken global keeps project",
			global:      `{"mcpServers": {"g": {"command": x}}}`,
			project:     strings.Replace(good, "%s", "p", 1),
			wantServers: []string{"p"},
			brokenScope: ScopeGlobal,
			wantMsg:     "an unexpected bare word",
		},
		{
			name:        "top level not an object",
			global:      `["a"]`,
			project:     strings.Replace(good, "%s", "p", 1),
			wantServers: []string{"p"},
			brokenScope: ScopeGlobal,
			wantMsg:     "top level must be a JSON object",
		},
		{
			name:        "mcpServers not an object",
			global:      strings.Replace(good, "%s", "g", 1),
			project:     `{"mcpServers": ["p"]}`,
			wantServers: []string{"g"},
			brokenScope: ScopeProject,
			wantMsg:     "mcpServers: must be an object",
		},
		{
			name:        "unreadable (directory)",
			global:      strings.Replace(good, "%s", "g", 1),
			wantServers: []string{"g"},
			brokenScope: ScopeProject,
			wantMsg:     "cannot read file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := tt.project
			if tt.name == "unreadable (directory)" {
				project = ""
			}
			root := t.TempDir()
			f := fixture{zotHome: filepath.Join(root, "zh"), projectDir: filepath.Join(root, "proj")}
			for path, content := range map[string]string{f.global(): tt.global, f.project(): project} {
				if content == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.name == "unreadable (directory)" {
				if err := os.MkdirAll(f.project(), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			c := Load(Options{ZotHome: f.zotHome, ProjectDir: f.projectDir, LookupEnv: fakeEnv(nil)})
			if got := names(c); !reflect.DeepEqual(got, tt.wantServers) {
				t.Errorf("servers = %v, want %v (problems %v)", got, tt.wantServers, problemStrings(c))
			}
			brokenPath := map[string]string{ScopeGlobal: f.global(), ScopeProject: f.project()}[tt.brokenScope]
			if len(c.Problems) != 1 {
				t.Fatalf("problems = %v, want exactly one", problemStrings(c))
			}
			p := c.Problems[0]
			if p.File != brokenPath || p.Server != "" || !strings.Contains(p.String(), tt.wantMsg) {
				t.Errorf("problem = %q, want file %s and %q", p.String(), brokenPath, tt.wantMsg)
			}
			for _, fs := range c.Files {
				if (fs.Path == brokenPath) != (fs.Err != "") {
					t.Errorf("file status %+v: Err set iff broken", fs)
				}
				if fs.Path == brokenPath && !fs.Found {
					t.Errorf("broken file reported as not found")
				}
			}
		})
	}
}

func TestSyntaxErrorDoesNotEchoContent(t *testing.T) {
	c, _ := setup(t, `{"mcpServers": {"g": {"env": {"TOKEN": supersecret123}}}}`, "", nil)
	for _, p := range problemStrings(c) {
		if strings.Contains(p, "supersecret123") {
			t.Errorf("problem echoes file content: %s", p)
		}
	}
	if len(c.Problems) == 0 {
		t.Fatal("expected a syntax problem")
	}
}

func TestEntryShapes(t *testing.T) {
	tests := []struct {
		name      string
		entry     string // JSON value of mcpServers.s
		wantKept  bool
		wantField string // Problem.Field expected ("" with wantKept=false: entry-level)
		wantMsg   string
	}{
		{name: "entry is a string", entry: `"npx foo"`, wantKept: false, wantMsg: "server entry must be a JSON object"},
		{name: "entry is null", entry: `null`, wantKept: false, wantMsg: "server entry must be a JSON object"},
		{name: "command wrong type", entry: `{"command": ["npx"]}`, wantKept: true, wantField: "command", wantMsg: "must be a string"},
		{name: "args wrong type", entry: `{"command": "x", "args": "a b"}`, wantKept: true, wantField: "args", wantMsg: "must be an array of strings"},
		{name: "args element wrong type", entry: `{"command": "x", "args": ["a", 2]}`, wantKept: true, wantField: "args[1]", wantMsg: "must be a string"},
		{name: "env wrong type", entry: `{"command": "x", "env": ["A=1"]}`, wantKept: true, wantField: "env", wantMsg: "must be an object"},
		{name: "env value wrong type", entry: `{"command": "x", "env": {"PORT": 8080}}`, wantKept: true, wantField: "env.PORT", wantMsg: "must be a string"},
		{name: "env key invalid", entry: `{"command": "x", "env": {"A=B": "1"}}`, wantKept: true, wantField: "env", wantMsg: "invalid variable name"},
		{name: "headers value wrong type", entry: `{"url": "https://h/", "headers": {"X": true}}`, wantKept: true, wantField: "headers.X", wantMsg: "must be a string"},
		{name: "cwd wrong type", entry: `{"command": "x", "cwd": 1}`, wantKept: true, wantField: "cwd", wantMsg: "must be a string"},
		{name: "url wrong type", entry: `{"url": {"href": "x"}}`, wantKept: true, wantField: "url", wantMsg: "must be a string"},
		{name: "transport wrong type", entry: `{"command": "x", "transport": 1}`, wantKept: true, wantField: "transport", wantMsg: "must be a string"},
		{name: "enabled wrong type", entry: `{"command": "x", "enabled": "no"}`, wantKept: true, wantField: "enabled", wantMsg: "must be true or false"},
		{name: "disabled wrong type", entry: `{"command": "x", "disabled": 0}`, wantKept: true, wantField: "disabled", wantMsg: "must be true or false"},
		{name: "disabledTools wrong type", entry: `{"command": "x", "disabledTools": "a"}`, wantKept: true, wantField: "disabledTools", wantMsg: "must be an array of strings"},
		{name: "pinTools wrong type", entry: `{"command": "x", "pinTools": "yes"}`, wantKept: true, wantField: "pinTools", wantMsg: "must be true or false"},
		{name: "timeout wrong type", entry: `{"command": "x", "requestTimeout": "60"}`, wantKept: true, wantField: "requestTimeout", wantMsg: "must be a number of seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := setup(t, `{"mcpServers": {"s": `+tt.entry+`, "ok": {"command": "x"}}}`, "", nil)
			if ok := mustServer(t, c, "ok"); !ok.Usable() {
				t.Errorf("sibling server not usable: %s", ok.Err)
			}
			s, kept := c.Server("s")
			if kept != tt.wantKept {
				t.Fatalf("kept = %v, want %v", kept, tt.wantKept)
			}
			if kept && (s.Err == "" || s.Usable() || !strings.Contains(s.Err, tt.wantField+": "+tt.wantMsg)) {
				t.Errorf("Err = %q, want it to contain %q", s.Err, tt.wantField+": "+tt.wantMsg)
			}
			if len(c.Problems) != 1 {
				t.Fatalf("problems = %v, want one", problemStrings(c))
			}
			p := c.Problems[0]
			if p.File != f.global() || p.Server != "s" || p.Field != tt.wantField || !strings.Contains(p.Message, tt.wantMsg) {
				t.Errorf("problem = %+v", p)
			}
		})
	}
}

func TestDuplicateServerInFile(t *testing.T) {
	c, _ := setup(t, `{"mcpServers": {"a": {"command": "first"}, "a": {"command": "second"}}}`, "", nil)
	if s := mustServer(t, c, "a"); s.Command != "second" {
		t.Errorf("command = %q, want the last definition", s.Command)
	}
	if len(c.Servers) != 1 || len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Message, "more than once") {
		t.Errorf("servers=%v problems=%v", names(c), problemStrings(c))
	}
}

func TestTransport(t *testing.T) {
	tests := []struct {
		name        string
		entry       string
		env         map[string]string
		want        Transport
		wantGuessed bool
		wantErr     string // substring of Err; "" = usable
		notInErr    string
	}{
		{name: "command implies stdio", entry: `{"command": "x"}`, want: TransportStdio},
		{name: "url only is guessed", entry: `{"url": "https://h.example/mcp"}`, want: TransportStreamableHTTP, wantGuessed: true},
		{name: "type http alias", entry: `{"type": "http", "url": "https://h.example/mcp"}`, want: TransportStreamableHTTP},
		{name: "transport streamableHttp", entry: `{"transport": "streamableHttp", "url": "http://h:8080/mcp"}`, want: TransportStreamableHTTP},
		{name: "transport streamable_http", entry: `{"transport": "streamable_http", "url": "http://h/"}`, want: TransportStreamableHTTP},
		{name: "transport streamable-http", entry: `{"transport": "streamable-http", "url": "http://h/"}`, want: TransportStreamableHTTP},
		{name: "type sse", entry: `{"type": "sse", "url": "https://h/sse"}`, want: TransportSSE},
		{name: "type stdio", entry: `{"type": "stdio", "command": "x"}`, want: TransportStdio},
		{name: "type and transport agree", entry: `{"type": "http", "transport": "streamable-http", "url": "https://h/"}`, want: TransportStreamableHTTP},
		{name: "type and transport disagree", entry: `{"type": "sse", "transport": "stdio", "command": "x", "url": "https://h/"}`, wantErr: `type: "sse" conflicts with "stdio"`},
		{name: "unknown transport", entry: `{"transport": "websocket", "url": "https://h/"}`, wantErr: `transport: unknown transport "websocket"; use "stdio", "streamable-http" (or "http") or "sse"`},
		{name: "unknown type", entry: `{"type": "grpc", "command": "x"}`, wantErr: `type: unknown transport "grpc"`},
		{name: "neither command nor url", entry: `{"args": ["a"]}`, wantErr: `needs "command" (stdio) or "url" (HTTP)`},
		{name: "stdio needs command", entry: `{"transport": "stdio", "url": "https://h/"}`, wantErr: `command: required for the stdio transport`},
		{name: "empty command", entry: `{"command": ""}`, wantErr: `command: required for the stdio transport`},
		{name: "sse needs url", entry: `{"type": "sse", "command": "x"}`, wantErr: `url: required for the sse transport`},
		{name: "http needs url", entry: `{"type": "http"}`, wantErr: `url: required for the streamable-http transport`},
		{name: "url bad scheme", entry: `{"url": "ftp://h/x"}`, wantErr: `url: is not a valid http:// or https:// URL`, notInErr: "ftp"},
		{name: "url no host", entry: `{"url": "https:///path"}`, wantErr: `url: is not a valid`},
		{name: "url relative", entry: `{"url": "/mcp"}`, wantErr: `url: is not a valid`},
		{name: "url via var not echoed", entry: `{"url": "${BASE}/mcp"}`, env: map[string]string{"BASE": "h0st-with-s3cret"}, wantErr: `url: is not a valid`, notInErr: "s3cret"},
		{name: "url via var ok", entry: `{"url": "${BASE}/mcp"}`, env: map[string]string{"BASE": "https://h.example"}, want: TransportStreamableHTTP, wantGuessed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := setup(t, `{"mcpServers": {"s": `+tt.entry+`}}`, "", tt.env)
			s := mustServer(t, c, "s")
			if tt.wantErr == "" {
				if s.Err != "" {
					t.Fatalf("Err = %q", s.Err)
				}
				if s.Transport != tt.want || s.TransportGuessed != tt.wantGuessed {
					t.Errorf("transport = %q guessed=%v, want %q guessed=%v", s.Transport, s.TransportGuessed, tt.want, tt.wantGuessed)
				}
				return
			}
			if !strings.Contains(s.Err, tt.wantErr) {
				t.Errorf("Err = %q, want it to contain %q", s.Err, tt.wantErr)
			}
			if s.Usable() {
				t.Error("server with Err is usable")
			}
			if len(c.Problems) == 0 {
				t.Error("no Problem recorded")
			}
			if tt.notInErr != "" {
				for _, p := range append(problemStrings(c), s.Err) {
					if strings.Contains(p, tt.notInErr) {
						t.Errorf("%q leaks %q", p, tt.notInErr)
					}
				}
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name                   string
		fields                 string
		connect, request, idle time.Duration
		wantErr                string
	}{
		{name: "defaults", connect: 30 * time.Second, request: 60 * time.Second, idle: 300 * time.Second},
		{name: "set", fields: `"connectTimeout": 5, "requestTimeout": 120, "idleTimeout": 600`, connect: 5 * time.Second, request: 120 * time.Second, idle: 600 * time.Second},
		{name: "fractions", fields: `"connectTimeout": 0.5, "requestTimeout": 1.25`, connect: 500 * time.Millisecond, request: 1250 * time.Millisecond, idle: 300 * time.Second},
		{name: "idle zero never sleeps", fields: `"idleTimeout": 0`, connect: 30 * time.Second, request: 60 * time.Second, idle: 0},
		{name: "negative idle", fields: `"idleTimeout": -1`, connect: 30 * time.Second, request: 60 * time.Second, idle: 300 * time.Second, wantErr: "idleTimeout: must not be negative"},
		{name: "zero connect", fields: `"connectTimeout": 0`, connect: 30 * time.Second, request: 60 * time.Second, idle: 300 * time.Second, wantErr: "connectTimeout: must be a positive number"},
		{name: "negative request", fields: `"requestTimeout": -5`, connect: 30 * time.Second, request: 60 * time.Second, idle: 300 * time.Second, wantErr: "requestTimeout: must be a positive number"},
		{name: "huge", fields: `"requestTimeout": 1e300`, connect: 30 * time.Second, request: 60 * time.Second, idle: 300 * time.Second, wantErr: "requestTimeout: is too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := `{"command": "x"`
			if tt.fields != "" {
				entry += ", " + tt.fields
			}
			c, _ := setup(t, `{"mcpServers": {"s": `+entry+`}}}`, "", nil)
			s := mustServer(t, c, "s")
			if s.ConnectTimeout != tt.connect || s.RequestTimeout != tt.request || s.IdleTimeout != tt.idle {
				t.Errorf("timeouts = %v/%v/%v, want %v/%v/%v", s.ConnectTimeout, s.RequestTimeout, s.IdleTimeout, tt.connect, tt.request, tt.idle)
			}
			if tt.wantErr == "" && s.Err != "" {
				t.Errorf("Err = %q", s.Err)
			}
			if tt.wantErr != "" && !strings.Contains(s.Err, tt.wantErr) {
				t.Errorf("Err = %q, want %q", s.Err, tt.wantErr)
			}
		})
	}
}

func TestEnabledAndDisabledTools(t *testing.T) {
	tests := []struct {
		name        string
		fields      string
		wantEnabled bool
		wantTools   []string
	}{
		{name: "default enabled", wantEnabled: true},
		{name: "enabled true", fields: `"enabled": true`, wantEnabled: true},
		{name: "enabled false", fields: `"enabled": false`, wantEnabled: false},
		{name: "disabled true", fields: `"disabled": true`, wantEnabled: false},
		{name: "disabled false", fields: `"disabled": false`, wantEnabled: true},
		{name: "disabled wins", fields: `"enabled": true, "disabled": true`, wantEnabled: false},
		{name: "disabledTools", fields: `"disabledTools": ["delete_repo", "push"]`, wantEnabled: true, wantTools: []string{"delete_repo", "push"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := `{"command": "x"`
			if tt.fields != "" {
				entry += ", " + tt.fields
			}
			c, _ := setup(t, `{"mcpServers": {"s": `+entry+`}}}`, "", nil)
			s := mustServer(t, c, "s")
			if s.Err != "" {
				t.Fatalf("Err = %q", s.Err)
			}
			if s.Enabled != tt.wantEnabled || s.Usable() != tt.wantEnabled {
				t.Errorf("Enabled = %v Usable = %v, want %v", s.Enabled, s.Usable(), tt.wantEnabled)
			}
			if !reflect.DeepEqual(s.DisabledTools, tt.wantTools) {
				t.Errorf("DisabledTools = %v, want %v", s.DisabledTools, tt.wantTools)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{
		"HOME":   "/home/u",
		"TOKEN":  "tok",
		"EMPTY":  "",
		"NESTED": "${TOKEN}",
		"DOLLAR": "$TOKEN",
	}
	tests := []struct {
		name          string
		in            string
		want          string
		wantMissing   []string
		wantMalformed bool
	}{
		{name: "plain", in: "abc", want: "abc"},
		{name: "var", in: "Bearer ${TOKEN}", want: "Bearer tok"},
		{name: "several", in: "${HOME}/${TOKEN}${TOKEN}", want: "/home/u/toktok"},
		{name: "default when unset", in: "${NOPE:-fallback}", want: "fallback"},
		{name: "default ignored when set", in: "${TOKEN:-fallback}", want: "tok"},
		{name: "set but empty stays empty", in: "[${EMPTY:-fallback}]", want: "[]"},
		{name: "set but empty plain", in: "[${EMPTY}]", want: "[]"},
		{name: "empty default", in: "[${NOPE:-}]", want: "[]"},
		{name: "one pass value", in: "${NESTED}", want: "${TOKEN}"},
		{name: "one pass default", in: "${NOPE:-${TOKEN}}", want: "${TOKEN}"},
		{name: "default with spaces and colons", in: "${NOPE:-a b:c}", want: "a b:c"},
		{name: "bare dollar untouched", in: "$HOME/x $ ${HOME}", want: "$HOME/x $ /home/u"},
		{name: "value with dollar not expanded", in: "${DOLLAR}", want: "$TOKEN"},
		{name: "double dollar not special", in: "$${TOKEN}", want: "$tok"},
		{name: "missing", in: "a${NOPE}b${NOPE}${ALSO}", wantMissing: []string{"NOPE", "ALSO"}},
		{name: "unterminated", in: "x${TOKEN", wantMalformed: true},
		{name: "bare open", in: "${", wantMalformed: true},
		{name: "empty name", in: "${}", wantMalformed: true},
		{name: "digit first", in: "${1X}", wantMalformed: true},
		{name: "bad operator", in: "${A:x}", wantMalformed: true},
		{name: "dash without colon", in: "${A-x}", wantMalformed: true},
		{name: "vscode env syntax", in: "${env:TOKEN}", want: "tok"},
		{name: "underscore and digits", in: "${_A1:-d}", want: "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := expand(tt.in, fakeEnv(env))
			if (r.malformed >= 0) != tt.wantMalformed {
				t.Fatalf("malformed = %d, want %v", r.malformed, tt.wantMalformed)
			}
			if tt.wantMalformed {
				return
			}
			if !reflect.DeepEqual(r.missing, tt.wantMissing) {
				t.Errorf("missing = %v, want %v", r.missing, tt.wantMissing)
			}
			if tt.wantMissing == nil && r.value != tt.want {
				t.Errorf("expand(%q) = %q, want %q", tt.in, r.value, tt.want)
			}
		})
	}
}

func TestExpansionInServers(t *testing.T) {
	const secret = "s3cr3t-Value-42"
	env := map[string]string{
		"GITHUB_TOKEN": secret,
		"OTHER_SECRET": secret + "-other",
		"BIN":          "/usr/bin/tool",
		"EMPTY":        "",
		"REF":          "${GITHUB_TOKEN}",
	}
	global := `{"mcpServers": {
		"ok": {
			"command": "${BIN}",
			"args": ["--token", "${GITHUB_TOKEN}", "${MODE:-fast}", "$HOME", "${REF}"],
			"env": {"API_KEY": "${GITHUB_TOKEN}", "E": "${EMPTY:-default}", "LIT": "literal"},
			"cwd": "${WORKDIR:-/srv}"
		},
		"http": {
			"url": "https://api.example.com/${PATH_PART:-mcp}",
			"headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}
		}
	}}`
	project := `{"mcpServers": {
		"badHeader": {
			"url": "https://h.example/mcp",
			"headers": {"Authorization": "Bearer ${MISSING_TOKEN}", "X-Literal": "` + secret + `", "X-Other": "${OTHER_SECRET}"}
		},
		"badEnv": {"command": "x", "env": {"API_KEY": "${NOT_SET}", "K": "${OTHER_SECRET}"}},
		"badArg": {"command": "x", "args": ["a", "b", "${NOPE_ARG}"], "env": {"Z": "` + secret + `"}},
		"badURL": {"url": "https://${NO_HOST}/mcp"},
		"badCmd": {"command": "${NO_CMD}"},
		"badCwd": {"command": "x", "cwd": "${NO_CWD}/x"},
		"malformed": {"command": "x", "args": ["${1X}"], "env": {"T": "` + secret + `"}},
		"emptyCmd": {"command": "${EMPTY}"}
	}}`
	c, f := setup(t, global, project, env)

	t.Run("expanded values", func(t *testing.T) {
		s := mustServer(t, c, "ok")
		if s.Err != "" {
			t.Fatalf("Err = %q", s.Err)
		}
		if s.Command != "/usr/bin/tool" {
			t.Errorf("Command = %q", s.Command)
		}
		wantArgs := []string{"--token", secret, "fast", "$HOME", "${GITHUB_TOKEN}"}
		if !reflect.DeepEqual(s.Args, wantArgs) {
			t.Errorf("Args = %q, want %q", s.Args, wantArgs)
		}
		wantEnv := map[string]string{"API_KEY": secret, "E": "", "LIT": "literal"}
		if !reflect.DeepEqual(s.Env, wantEnv) {
			t.Errorf("Env = %q, want %q", s.Env, wantEnv)
		}
		if s.Cwd != "/srv" {
			t.Errorf("Cwd = %q", s.Cwd)
		}
		if s.Raw.Args[1] != "${GITHUB_TOKEN}" || s.Raw.Env["API_KEY"] != "${GITHUB_TOKEN}" || s.Raw.Command != "${BIN}" {
			t.Errorf("Raw not preserved: %+v", s.Raw)
		}
		h := mustServer(t, c, "http")
		if h.Err != "" || h.URL != "https://api.example.com/mcp" || h.Headers["Authorization"] != "Bearer "+secret {
			t.Errorf("http server: Err=%q URL=%q", h.Err, h.URL)
		}
	})

	errTests := []struct {
		server, field, variable string
	}{
		{server: "badHeader", field: "headers.Authorization", variable: "MISSING_TOKEN"},
		{server: "badEnv", field: "env.API_KEY", variable: "NOT_SET"},
		{server: "badArg", field: "args[2]", variable: "NOPE_ARG"},
		{server: "badURL", field: "url", variable: "NO_HOST"},
		{server: "badCmd", field: "command", variable: "NO_CMD"},
		{server: "badCwd", field: "cwd", variable: "NO_CWD"},
	}
	for _, tt := range errTests {
		t.Run(tt.server, func(t *testing.T) {
			s := mustServer(t, c, tt.server)
			want := tt.field + ": environment variable " + tt.variable + " is not set (set it or use ${" + tt.variable + ":-default})"
			if s.Err != want {
				t.Errorf("Err = %q, want %q", s.Err, want)
			}
			if s.Usable() {
				t.Error("usable despite missing variable")
			}
			found := false
			for _, p := range c.Problems {
				if p.Server == tt.server && p.Field == tt.field && p.File == f.project() && strings.Contains(p.Message, tt.variable) {
					found = true
					wantStr := f.project() + `: server "` + tt.server + `": ` + want
					if p.String() != wantStr {
						t.Errorf("String() = %q, want %q", p.String(), wantStr)
					}
				}
			}
			if !found {
				t.Errorf("no problem for %s/%s in %v", tt.server, tt.field, problemStrings(c))
			}
		})
	}

	t.Run("malformed", func(t *testing.T) {
		s := mustServer(t, c, "malformed")
		if !strings.HasPrefix(s.Err, "args[0]: malformed ${...} reference") {
			t.Errorf("Err = %q", s.Err)
		}
	})
	t.Run("command expanding to empty", func(t *testing.T) {
		s := mustServer(t, c, "emptyCmd")
		if !strings.Contains(s.Err, "command: expands to an empty string") {
			t.Errorf("Err = %q", s.Err)
		}
	})
	t.Run("no secret anywhere", func(t *testing.T) {
		texts := problemStrings(c)
		for _, s := range c.Servers {
			texts = append(texts, s.Err)
		}
		for _, fs := range c.Files {
			texts = append(texts, fs.Err)
		}
		for _, txt := range texts {
			if strings.Contains(txt, secret) {
				t.Errorf("secret leaked: %q", txt)
			}
		}
	})
	t.Run("files not rewritten", func(t *testing.T) {
		b, err := os.ReadFile(f.global())
		if err != nil || string(b) != global {
			t.Errorf("global file changed: %v", err)
		}
	})
}

func TestExpansionAfterMerge(t *testing.T) {
	// The global entry references a variable that is missing, but the
	// project entry replaces it: no error must surface for the effective
	// server.
	c, _ := setup(t,
		`{"mcpServers": {"a": {"command": "${MISSING}"}, "g": {"command": "${BIN}"}}}`,
		`{"mcpServers": {"a": {"command": "ok"}}}`,
		map[string]string{"BIN": "/bin/g"})
	if s := mustServer(t, c, "a"); s.Err != "" || s.Command != "ok" || len(c.Problems) != 0 {
		t.Errorf("a: Err=%q Command=%q problems=%v", s.Err, s.Command, problemStrings(c))
	}
	c2, _ := setup(t,
		`{"mcpServers": {"a": {"command": "${MISSING}"}, "g": {"command": "${BIN}"}}}`,
		`{"mcpServers": {"a": {"command": "ok"}`,
		map[string]string{"BIN": "/bin/g"})
	if s := mustServer(t, c2, "g"); s.Err != "" || s.Command != "/bin/g" {
		t.Errorf("global servers must be expanded when the project file is broken: Err=%q Command=%q", s.Err, s.Command)
	}
}

func TestCwd(t *testing.T) {
	tests := []struct {
		name       string
		cwd        string // JSON value, "" = not set
		noProject  bool
		want       string // relative to projectDir when wantRel
		wantRel    bool
		wantErrSub string
	}{
		{name: "unset", want: ""},
		{name: "absolute", cwd: `"/opt/srv"`, want: "/opt/srv"},
		{name: "absolute cleaned", cwd: `"/opt/srv/../x/"`, want: "/opt/x"},
		{name: "relative", cwd: `"tools/srv"`, want: "tools/srv", wantRel: true},
		{name: "dot", cwd: `"."`, want: ".", wantRel: true},
		{name: "relative without project", cwd: `"tools"`, noProject: true, wantErrSub: "cwd: is a relative path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := `{"command": "x"`
			if tt.cwd != "" {
				entry += `, "cwd": ` + tt.cwd
			}
			entry += "}"
			root := t.TempDir()
			zh := filepath.Join(root, "zh")
			if err := os.MkdirAll(zh, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(GlobalPath(zh), []byte(`{"mcpServers": {"s": `+entry+`}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			proj := filepath.Join(root, "proj")
			opts := Options{ZotHome: zh, ProjectDir: proj, LookupEnv: fakeEnv(nil)}
			if tt.noProject {
				opts.ProjectDir = ""
			}
			s := mustServer(t, Load(opts), "s")
			if tt.wantErrSub != "" {
				if !strings.Contains(s.Err, tt.wantErrSub) {
					t.Errorf("Err = %q, want %q", s.Err, tt.wantErrSub)
				}
				return
			}
			want := tt.want
			if tt.wantRel {
				want = filepath.Join(proj, tt.want)
			}
			if s.Err != "" || s.Cwd != want {
				t.Errorf("Cwd = %q Err = %q, want %q", s.Cwd, s.Err, want)
			}
		})
	}
}

// TestPinTools: "pinTools" is read in either file; a project file cannot switch the pins of
// its servers off (a false there is a warning, not a setting), and the tool cache's key
// ignores it.
func TestPinTools(t *testing.T) {
	c, f := setup(t, `{"mcpServers": {"g": {"command": "x", "pinTools": true}, "h": {"command": "x"}}}`,
		`{"mcpServers": {"p": {"command": "y", "pinTools": false}, "q": {"command": "y", "pinTools": true}}}`, nil)
	for name, want := range map[string]bool{"g": true, "h": false, "p": false, "q": true} {
		if s := mustServer(t, c, name); s.PinTools != want || s.Err != "" {
			t.Errorf("%s: PinTools = %v (Err %q), want %v", name, s.PinTools, s.Err, want)
		}
	}
	if len(c.Problems) != 1 || c.Problems[0].Server != "p" || c.Problems[0].Field != "pinTools" || c.Problems[0].Level != LevelWarning ||
		c.Problems[0].File != f.project() || !strings.Contains(c.Problems[0].Message, "no effect") {
		t.Fatalf("problems = %v", problemStrings(c))
	}
	a, _ := setup(t, `{"mcpServers": {"s": {"command": "x", "pinTools": true}}}`, "", nil)
	b, _ := setup(t, `{"mcpServers": {"s": {"command": "x"}}}`, "", nil)
	if mustServer(t, a, "s").Fingerprint() != mustServer(t, b, "s").Fingerprint() {
		t.Error("pinTools changes the tool cache's key")
	}
}

func TestFingerprint(t *testing.T) {
	base := `{"command": "npx", "args": ["-y", "server-github"], "env": {"TOKEN": "${GH_TOKEN}", "TOOLSETS": "repos"}, "connectTimeout": 10}`
	fp := func(t *testing.T, entry string, env map[string]string) string {
		t.Helper()
		c, _ := setup(t, `{"mcpServers": {"s": `+entry+`}}`, "", env)
		return mustServer(t, c, "s").Fingerprint()
	}
	baseEnv := map[string]string{"GH_TOKEN": "old-token"}
	baseFP := fp(t, base, baseEnv)
	if len(baseFP) != 64 || strings.Trim(baseFP, "0123456789abcdef") != "" {
		t.Fatalf("fingerprint %q is not hex SHA-256", baseFP)
	}
	tests := []struct {
		name     string
		entry    string
		env      map[string]string
		wantSame bool
	}{
		{name: "identical", entry: base, env: baseEnv, wantSame: true},
		{name: "token rotated via var", entry: base, env: map[string]string{"GH_TOKEN": "new-token"}, wantSame: true},
		{name: "timeouts edited", entry: strings.Replace(base, `"connectTimeout": 10`, `"connectTimeout": 99, "requestTimeout": 5, "idleTimeout": 0`, 1), env: baseEnv, wantSame: true},
		{name: "disabled and disabledTools", entry: strings.Replace(base, `"connectTimeout": 10`, `"enabled": false, "disabledTools": ["x"]`, 1), env: baseEnv, wantSame: true},
		{name: "env key order", entry: `{"command": "npx", "args": ["-y", "server-github"], "env": {"TOOLSETS": "repos", "TOKEN": "${GH_TOKEN}"}}`, env: baseEnv, wantSame: true},
		{name: "args edited", entry: strings.Replace(base, `"server-github"`, `"server-github@2"`, 1), env: baseEnv},
		{name: "args split differently", entry: strings.Replace(base, `["-y", "server-github"]`, `["-y server-github"]`, 1), env: baseEnv},
		{name: "literal env edited", entry: strings.Replace(base, `"repos"`, `"repos,issues"`, 1), env: baseEnv},
		{name: "var reference edited", entry: strings.Replace(base, `${GH_TOKEN}`, `${GITHUB_TOKEN}`, 1), env: map[string]string{"GITHUB_TOKEN": "old-token"}},
		{name: "command edited", entry: strings.Replace(base, `"npx"`, `"bunx"`, 1), env: baseEnv},
		{name: "cwd added", entry: strings.Replace(base, `"connectTimeout": 10`, `"cwd": "/srv"`, 1), env: baseEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fp(t, tt.entry, tt.env)
			if (got == baseFP) != tt.wantSame {
				t.Errorf("same = %v, want %v", got == baseFP, tt.wantSame)
			}
		})
	}

	httpTests := []struct {
		name     string
		a, b     string
		env      map[string]string
		wantSame bool
	}{
		{name: "header token via var rotated", a: `{"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${T}"}}`, b: `{"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${T}"}}`, wantSame: true},
		{name: "literal header edited", a: `{"url": "https://h/mcp", "headers": {"X-Toolsets": "a"}}`, b: `{"url": "https://h/mcp", "headers": {"X-Toolsets": "b"}}`},
		{name: "url edited", a: `{"url": "https://h/mcp"}`, b: `{"url": "https://h/mcp2"}`},
		{name: "transport differs", a: `{"type": "sse", "url": "https://h/mcp"}`, b: `{"type": "http", "url": "https://h/mcp"}`},
		{name: "header vs env same pair", a: `{"url": "https://h/mcp", "headers": {"K": "v"}}`, b: `{"url": "https://h/mcp", "env": {"K": "v"}}`},
	}
	for _, tt := range httpTests {
		t.Run(tt.name, func(t *testing.T) {
			a := fp(t, tt.a, map[string]string{"T": "one"})
			b := fp(t, tt.b, map[string]string{"T": "two"})
			if (a == b) != tt.wantSame {
				t.Errorf("same = %v, want %v", a == b, tt.wantSame)
			}
		})
	}
}

func TestZotHome(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		goos string
		home string
		want string
	}{
		{name: "ZOT_HOME wins", env: map[string]string{"ZOT_HOME": "/z", "XDG_STATE_HOME": "/x", "LOCALAPPDATA": "/l"}, goos: "linux", home: "/h", want: "/z"},
		{name: "ZOT_HOME wins on darwin", env: map[string]string{"ZOT_HOME": "/z", "XDG_STATE_HOME": "/x"}, goos: "darwin", home: "/h", want: "/z"},
		{name: "empty ZOT_HOME ignored", env: map[string]string{"ZOT_HOME": "", "XDG_STATE_HOME": "/x"}, goos: "linux", home: "/h", want: filepath.Join("/x", "zot")},
		{name: "XDG on linux", env: map[string]string{"XDG_STATE_HOME": "/x"}, goos: "linux", home: "/h", want: filepath.Join("/x", "zot")},
		{name: "XDG before macOS dir", env: map[string]string{"XDG_STATE_HOME": "/x"}, goos: "darwin", home: "/h", want: filepath.Join("/x", "zot")},
		{name: "XDG before LOCALAPPDATA", env: map[string]string{"XDG_STATE_HOME": "/x", "LOCALAPPDATA": "/l"}, goos: "windows", home: "/h", want: filepath.Join("/x", "zot")},
		{name: "darwin", goos: "darwin", home: "/h", want: filepath.Join("/h", "Library", "Application Support", "zot")},
		{name: "windows LOCALAPPDATA not APPDATA", env: map[string]string{"LOCALAPPDATA": "/l", "APPDATA": "/roaming"}, goos: "windows", home: "/h", want: filepath.Join("/l", "zot")},
		{name: "windows without LOCALAPPDATA", goos: "windows", home: "/h", want: filepath.Join("/h", ".local", "state", "zot")},
		{name: "linux default", goos: "linux", home: "/h", want: filepath.Join("/h", ".local", "state", "zot")},
		{name: "no home", goos: "linux", want: ".zot"},
		{name: "darwin no home", goos: "darwin", want: ".zot"},
		{name: "nil lookup", goos: "linux", home: "/h", want: filepath.Join("/h", ".local", "state", "zot")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := fakeEnv(tt.env)
			if tt.name == "nil lookup" {
				lookup = nil
			}
			if got := ZotHome(lookup, tt.goos, tt.home); got != tt.want {
				t.Errorf("ZotHome = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	tests := []struct{ got, want string }{
		{GlobalPath("/z"), filepath.Join("/z", "mcp.json")},
		{ProjectPath("/p"), filepath.Join("/p", ".zot", "mcp.json")},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "/f", Server: "gh", Field: "headers.Authorization", Message: "m"}, `/f: server "gh": headers.Authorization: m`},
		{Problem{File: "/f", Server: "gh", Message: "m"}, `/f: server "gh": m`},
		{Problem{File: "/f", Field: "toolExposure", Message: "m"}, `/f: toolExposure: m`},
		{Problem{File: "/f", Message: "m"}, `/f: m`},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestOrdering(t *testing.T) {
	global := `{"toolExposure": "bad", "mcpServers": {
		"zeta": {"command": "x", "args": [1], "idleTimeout": -1},
		"alpha": {"command": "x", "enabled": "yes"},
		"mid": {"url": "https://h/", "headers": {"B": "${NB}", "A": "${NA}"}}
	}}`
	project := `{"mcpServers": {"beta": {"command": "x", "cwd": 3}}}`
	c, f := setup(t, global, project, nil)
	if got, want := names(c), []string{"alpha", "beta", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
	type key struct{ file, server, field string }
	var got []key
	for _, p := range c.Problems {
		got = append(got, key{p.File, p.Server, p.Field})
	}
	want := []key{
		{f.global(), "", "toolExposure"},
		{f.global(), "alpha", "enabled"},
		{f.global(), "mid", "headers.A"},
		{f.global(), "mid", "headers.B"},
		{f.global(), "zeta", "args[0]"},
		{f.global(), "zeta", "idleTimeout"},
		{f.project(), "beta", "cwd"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problem order:\n got %v\nwant %v", got, want)
	}
	// Loading twice gives the same result.
	c2 := Load(Options{ZotHome: f.zotHome, ProjectDir: f.projectDir, LookupEnv: fakeEnv(nil)})
	if !reflect.DeepEqual(c, c2) {
		t.Error("Load is not deterministic")
	}
}

func TestServerLookup(t *testing.T) {
	c, _ := setup(t, `{"mcpServers": {"b": {"command": "x"}, "a": {"command": "y"}, "c": {"command": "z"}}}`, "", nil)
	tests := []struct {
		name    string
		wantOK  bool
		wantCmd string
	}{
		{"a", true, "y"}, {"b", true, "x"}, {"c", true, "z"}, {"d", false, ""}, {"", false, ""},
	}
	for _, tt := range tests {
		s, ok := c.Server(tt.name)
		if ok != tt.wantOK || (ok && s.Command != tt.wantCmd) {
			t.Errorf("Server(%q) = %v, %v", tt.name, s, ok)
		}
	}
	s, _ := c.Server("a")
	s.Enabled = false
	if c.Servers[0].Enabled {
		t.Error("Server must return a pointer into Servers")
	}
}
