package templates

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

var refRe = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)

func all(t *testing.T) []Template {
	t.Helper()
	ts, err := All()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// stringValues collects every string value in a decoded JSON value.
func stringValues(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			stringValues(e, out)
		}
	case map[string]any:
		for _, e := range x {
			stringValues(e, out)
		}
	}
}

func TestRequiredTemplates(t *testing.T) {
	var names []string
	for _, tp := range all(t) {
		names = append(names, tp.Name)
	}
	for _, want := range []string{"you", "serply", "grep", "filesystem", "context7", "playwright", "github", "memory", "fetch", "sequential-thinking"} {
		if !slices.Contains(names, want) {
			t.Errorf("template %q missing (have %v)", want, names)
		}
		if _, ok := Get(want); !ok {
			t.Errorf("Get(%q) found nothing", want)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("All is not sorted: %v", names)
	}
	if _, ok := Get("no-such-template"); ok {
		t.Error("Get found a template that does not exist")
	}
}

func TestTemplateShape(t *testing.T) {
	seen := map[string]bool{}
	for _, tp := range all(t) {
		if seen[tp.Name] {
			t.Errorf("duplicate template %q", tp.Name)
		}
		seen[tp.Name] = true
		if tp.Name == "" || strings.ContainsAny(tp.Name, " /~\t") {
			t.Errorf("bad template name %q", tp.Name)
		}
		d := tp.Description
		if strings.TrimSpace(d) == "" || strings.ContainsAny(d, "\r\n") || d != strings.TrimSpace(d) || len(d) > 100 {
			t.Errorf("%s: description must be one short line: %q", tp.Name, d)
		}
		var obj map[string]any
		if err := json.Unmarshal(tp.Server, &obj); err != nil || obj == nil {
			t.Errorf("%s: server is not a JSON object: %s", tp.Name, tp.Server)
		}
	}
}

// Templates refer to secrets only through ${VAR}: every var listed is referenced, every
// reference is listed, and header/env values never hold literal text beyond a scheme word.
func TestTemplatesUseVarReferences(t *testing.T) {
	for _, tp := range all(t) {
		var v any
		if err := json.Unmarshal(tp.Server, &v); err != nil {
			t.Fatal(err)
		}
		var vals []string
		stringValues(v, &vals)
		var refs []string
		for _, s := range vals {
			for _, m := range refRe.FindAllStringSubmatch(s, -1) {
				if m[2] != "" {
					t.Errorf("%s: %q has a default; a template must not carry a literal value", tp.Name, m[0])
				}
				if !slices.Contains(refs, m[1]) {
					refs = append(refs, m[1])
				}
			}
		}
		for _, name := range tp.Vars {
			if !strings.Contains(string(tp.Server), "${"+name+"}") {
				t.Errorf("%s: var %s is listed but ${%s} does not appear in %s", tp.Name, name, name, tp.Server)
			}
		}
		for _, r := range refs {
			if !slices.Contains(tp.Vars, r) {
				t.Errorf("%s: ${%s} is used but not listed in vars %v", tp.Name, r, tp.Vars)
			}
		}
		// Header and env values are where secrets go: each must contain a reference and
		// nothing else but an auth scheme.
		var entry struct {
			Env     map[string]string `json:"env"`
			Headers map[string]string `json:"headers"`
		}
		_ = json.Unmarshal(tp.Server, &entry)
		for _, m := range []map[string]string{entry.Env, entry.Headers} {
			for k, val := range m {
				rest := strings.TrimSpace(refRe.ReplaceAllString(val, ""))
				if !refRe.MatchString(val) || (rest != "" && rest != "Bearer" && rest != "Token") {
					t.Errorf("%s: %s holds a literal value %q; use a ${VAR} reference", tp.Name, k, val)
				}
			}
		}
	}
}

func TestSerplyHeader(t *testing.T) {
	tp, ok := Get("serply")
	if !ok {
		t.Fatal("no serply template")
	}
	var e struct {
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(tp.Server, &e); err != nil {
		t.Fatal(err)
	}
	if got := e.Headers["X-Api-Key"]; got != "${SERPLY_API_KEY}" {
		t.Errorf("serply X-Api-Key = %q, want ${SERPLY_API_KEY}", got)
	}
	if !slices.Equal(tp.Vars, []string{"SERPLY_API_KEY"}) {
		t.Errorf("serply vars = %v", tp.Vars)
	}
}

// Every template, written with config.AddServer, loads as a usable server once its
// variables are set, and reports exactly its variables as missing when they are not.
func TestTemplatesLoadAsUsable(t *testing.T) {
	for _, tp := range all(t) {
		t.Run(tp.Name, func(t *testing.T) {
			home := t.TempDir()
			path := config.GlobalPath(home)
			if _, err := config.AddServer(context.Background(), path, tp.Name, entry(t, tp), false); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{}
			for _, v := range tp.Vars {
				env[v] = "value-of-" + v
			}
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			c := config.Load(config.Options{ZotHome: home, ProjectDir: t.TempDir(), LookupEnv: lookup})
			if len(c.Problems) > 0 {
				t.Fatalf("problems: %v", c.Problems)
			}
			s, ok := c.Server(tp.Name)
			if !ok {
				t.Fatalf("server %q not loaded from %s", tp.Name, path)
			}
			if !s.Usable() {
				t.Fatalf("not usable: %s", s.Err)
			}
			if s.Source != path || s.Scope != config.ScopeGlobal {
				t.Errorf("source %s (%s)", s.Source, s.Scope)
			}
			switch s.Transport {
			case config.TransportStdio:
				if s.Command == "" {
					t.Error("stdio template without command")
				}
			case config.TransportStreamableHTTP, config.TransportSSE:
				if !strings.HasPrefix(s.URL, "https://") {
					t.Errorf("url %q is not https", s.URL)
				}
			default:
				t.Errorf("transport %q", s.Transport)
			}
			// The values reached the expanded entry.
			expanded := strings.Join(append(append([]string{s.Command, s.URL}, s.Args...), mapValues(s.Headers, s.Env)...), "\n")
			for _, v := range tp.Vars {
				if !strings.Contains(expanded, "value-of-"+v) {
					t.Errorf("${%s} was not expanded into the entry", v)
				}
			}

			if len(tp.Vars) == 0 {
				return
			}
			// Unset: the server has a config error naming each variable, never usable.
			c = config.Load(config.Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false }})
			s, _ = c.Server(tp.Name)
			if s.Usable() {
				t.Fatal("usable without its variables")
			}
			for _, v := range tp.Vars {
				if !strings.Contains(s.Err, v) {
					t.Errorf("error %q does not name %s", s.Err, v)
				}
			}
		})
	}
}

// Every template written into one file, side by side, loads as usable.
func TestAllTemplatesInOneFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "mcp.json")
	env := map[string]string{}
	for _, tp := range all(t) {
		if _, err := config.AddServer(context.Background(), path, tp.Name, entry(t, tp), false); err != nil {
			t.Fatalf("%s: %v", tp.Name, err)
		}
		for _, v := range tp.Vars {
			env[v] = "x"
		}
	}
	c := config.Load(config.Options{ZotHome: home, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if len(c.Servers) != len(all(t)) || len(c.Problems) > 0 {
		t.Fatalf("servers %d, problems %v", len(c.Servers), c.Problems)
	}
	for _, s := range c.Servers {
		if !s.Usable() {
			t.Errorf("%s: %s", s.Name, s.Err)
		}
	}
}

func mapValues(ms ...map[string]string) []string {
	var out []string
	for _, m := range ms {
		for _, v := range m {
			out = append(out, v)
		}
	}
	return out
}

// entry fills a template as `setup add` does; a template that needs --path gets a fresh
// directory holding the file it must contain.
func entry(t *testing.T, tp Template) json.RawMessage {
	t.Helper()
	dir := ""
	if tp.Path != nil {
		dir = t.TempDir()
		if tp.Path.MustContain != "" {
			f := filepath.Join(dir, filepath.FromSlash(tp.Path.MustContain))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	e, err := tp.Entry(dir)
	if err != nil {
		t.Fatalf("%s: %v", tp.Name, err)
	}
	return e
}

// A template uses the path placeholder exactly when it declares a --path, and then says
// what the directory is and which file proves it.
func TestPathPlaceholderMatchesDeclaration(t *testing.T) {
	for _, tp := range all(t) {
		uses := strings.Contains(string(tp.Server), PathPlaceholder)
		if uses != (tp.Path != nil) {
			t.Errorf("%s: uses %s: %v, declares path: %v", tp.Name, PathPlaceholder, uses, tp.Path != nil)
		}
		if tp.Path != nil && (tp.Path.What == "" || tp.Path.MustContain == "") {
			t.Errorf("%s: path needs what and mustContain: %+v", tp.Name, tp.Path)
		}
		if tp.Path == nil && strings.Contains(tp.Description, "--path") {
			t.Errorf("%s: description mentions --path but the template takes none", tp.Name)
		}
	}
}

// The gbr template runs `node <absolute dir>/bin/gbr-mcp.js`, as zot's bridge README
// documents Build Remote Agent's MCP server, and its text pins v0.6.0 and keeps mailbox keys
// out of mcp.json.
func TestGBRTemplate(t *testing.T) {
	tp, ok := Get("gbr")
	if !ok {
		t.Fatal("no gbr template")
	}
	if tp.Path == nil || tp.Path.MustContain != "bin/gbr-mcp.js" {
		t.Fatalf("gbr path: %+v", tp.Path)
	}
	text := tp.Description + "\n" + strings.Join(tp.Notes, "\n")
	for _, want := range []string{"v0.6.0", "--path", "mailbox keys in mcp.json", "Never"} {
		if !strings.Contains(text, want) {
			t.Errorf("gbr text lacks %q:\n%s", want, text)
		}
	}
	if len(tp.Vars) != 0 || strings.Contains(string(tp.Server), "env") || strings.Contains(string(tp.Server), "headers") {
		t.Errorf("gbr entry must carry no keys: %s", tp.Server)
	}

	checkout := t.TempDir()
	if err := os.MkdirAll(filepath.Join(checkout, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "bin", "gbr-mcp.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory name JSON must escape, to show the path is substituted as a value.
	odd := filepath.Join(t.TempDir(), `a "quoted" dir`)
	if err := os.MkdirAll(filepath.Join(odd, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(odd, "bin", "gbr-mcp.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	plainFile := filepath.Join(checkout, "bin", "gbr-mcp.js")
	empty := t.TempDir()

	for _, c := range []struct {
		name, dir string
		wantArg   string // the script path in args; "" when an error is expected
		wantErr   []string
	}{
		{"absolute checkout", checkout, checkout + "/bin/gbr-mcp.js", nil},
		{"unclean absolute path", checkout + "/bin/..", checkout + "/bin/gbr-mcp.js", nil},
		{"quotes in the path", odd, odd + "/bin/gbr-mcp.js", nil},
		{"no --path", "", "", []string{`"gbr" needs --path DIR`, "absolute path", "Build Remote Agent checkout"}},
		{"relative", "gbr", "", []string{`--path "gbr" is relative`, "absolute path"}},
		{"dot relative", "./build-remote-agent", "", []string{"is relative"}},
		{"missing directory", filepath.Join(empty, "nope"), "", []string{filepath.Join(empty, "nope"), "no such file or directory"}},
		{"a file, not a directory", plainFile, "", []string{"is not a directory"}},
		{"not a gbr checkout", empty, "", []string{"has no bin/gbr-mcp.js", "Build Remote Agent checkout (release v0.6.0)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := tp.Entry(c.dir)
			if c.wantArg == "" {
				if err == nil {
					t.Fatalf("accepted: %s", raw)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var e struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("entry is not JSON: %v: %s", err, raw)
			}
			if e.Command != "node" || !slices.Equal(e.Args, []string{c.wantArg}) {
				t.Errorf("entry = %+v, want node %s", e, c.wantArg)
			}
		})
	}

	grep, _ := Get("grep")
	if _, err := grep.Entry(checkout); err == nil || !strings.Contains(err.Error(), `"grep" takes no --path`) {
		t.Errorf("a template without a path accepted --path: %v", err)
	}
	if raw, err := grep.Entry(""); err != nil || string(raw) != string(grep.Server) {
		t.Errorf("grep entry changed: %s %v", raw, err)
	}
}
