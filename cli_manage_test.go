package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/cli"
	mcpcmd "github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// decodeJSON parses a --json output into v, failing the test with the output when it is
// not exactly one JSON document.
func decodeJSON(t *testing.T, what string, r cliResult, v any) {
	t.Helper()
	expectCode(t, r, 0, what)
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: output is not the expected JSON: %v\n%s", what, err, r.stdout)
	}
	if dec.More() {
		t.Fatalf("%s: more than one JSON document:\n%s", what, r.stdout)
	}
}

// noLogLines fails when a JSON log line reached the terminal (stderr) without
// MCP_BRIDGE_LOG: messages are printed once, in words.
func noLogLines(t *testing.T, what string, r cliResult) {
	t.Helper()
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), `{"level"`) {
			t.Errorf("%s printed a JSON log line on the terminal: %s", what, l)
		}
	}
}

// toolJSON is one entry of tools --json.
type toolJSON struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// doctorJSON is doctor --json's output as scripts read it: decodeJSON refuses a field
// it does not name, so a field added, renamed or dropped in the CLI shows up here.
type doctorJSON struct {
	Files []struct {
		Scope string `json:"scope"`
		Path  string `json:"path"`
		Found bool   `json:"found"`
		Error string `json:"error"`
	} `json:"files"`
	Exposure struct {
		Setting string   `json:"setting"`
		Source  string   `json:"source"`
		Legacy  modeJSON `json:"releasedZot"`
		Newer   modeJSON `json:"newerZot"`
	} `json:"exposure"`
	Problems []string `json:"problems"`
	Servers  []struct {
		Name      string   `json:"name"`
		File      string   `json:"file"`
		Status    string   `json:"status"`
		Tools     int      `json:"tools"`
		Transport string   `json:"transport"`
		ElapsedMS int64    `json:"elapsedMs"`
		Error     string   `json:"error"`
		Findings  []string `json:"findings"`
		Skipped   string   `json:"skipped"`
	} `json:"servers"`
	AlwaysLoad *bridge.AlwaysLoadUse `json:"alwaysLoad"`
	OK         bool                  `json:"ok"`
}

// modeJSON is the tool exposure on one kind of zot in doctor --json.
type modeJSON struct {
	Mode string `json:"mode"`
	Why  string `json:"why"`
}

// The whole life of a server from the terminal, against the real npm filesystem server:
// add → list → get → call (no refresh before it) → the other name forms → tools, search,
// doctor as JSON → remove. The config keeps the user's comment and other entries.
func TestCLIManageNPMFilesystem(t *testing.T) {
	t.Parallel()
	bin := testutil.NPMBin(t)
	e := newCLIEnv(t, "FS_TOKEN=fs-token-value")
	e.writeConfig(e.globalPath(), map[string]any{"keep": map[string]any{"command": "keep-me", "enabled": false}})
	if err := os.WriteFile(filepath.Join(e.project, "hello.txt"), []byte("hello from the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsBin := filepath.Join(bin, "mcp-server-filesystem")

	r := e.run("add", "fs", "--env", "FS_TOKEN=${FS_TOKEN}", "--env", "LITERAL=planted-value", "--", fsBin, e.project)
	expectCode(t, r, 0, "add")
	if !strings.Contains(r.stdout, `Added command MCP server "fs" in `+e.globalPath()) || strings.Contains(r.all(), "planted-value") {
		t.Fatalf("add output:\n%s", r.all())
	}
	if !strings.Contains(r.stdout, "LITERAL") || !strings.Contains(r.stdout, "${LITERAL}") {
		t.Errorf("add does not point out the literal --env value: %s", r.stdout)
	}
	checkMode(t, e.globalPath())
	servers := readServers(t, e.globalPath())
	if fs := servers["fs"]; fs.Command != fsBin || !slices.Equal(fs.Args, []string{e.project}) || servers["keep"].Command != "keep-me" {
		t.Fatalf("config after add: %+v", servers)
	}
	if data, _ := os.ReadFile(e.globalPath()); !bytes.Contains(data, []byte("// written by the CLI test")) {
		t.Errorf("add lost the file's comment:\n%s", data)
	}

	r = e.run("list")
	expectCode(t, r, 0, "list")
	if !regexpLine(r.stdout, `^fs\s+global\s+stdio\s+enabled\s+not cached\s+`+regexpQuote(e.globalPath())+`$`) ||
		!regexpLine(r.stdout, `^keep\s+global\s+stdio\s+disabled\s+-\s+`) {
		t.Fatalf("list before any refresh:\n%s", r.stdout)
	}
	var list []mcpcmd.ServerInfo
	decodeJSON(t, "list --json", e.run("list", "--json"), &list)
	if len(list) != 2 || list[0].Name != "fs" || list[0].Cache != mcpcmd.CacheMissing || list[0].Scope != "global" || list[0].File != e.globalPath() || list[0].Transport != "stdio" {
		t.Fatalf("list --json before refresh: %+v", list)
	}

	r = e.run("get", "fs")
	expectCode(t, r, 0, "get")
	for _, want := range []string{`MCP server "fs"`, "defined in: " + e.globalPath() + " (global)", "command:    " + fsBin + " " + e.project,
		"FS_TOKEN=${FS_TOKEN}", "LITERAL=<set>"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("get lacks %q:\n%s", want, r.stdout)
		}
	}
	var info mcpcmd.ServerInfo
	decodeJSON(t, "get --json", e.run("get", "fs", "--json"), &info)
	if info.Command != fsBin || !slices.Equal(info.Args, []string{e.project}) || info.Env["FS_TOKEN"] != "${FS_TOKEN}" || info.Env["LITERAL"] != "<set>" {
		t.Fatalf("get --json: %+v", info)
	}
	r = e.run("get", "fss")
	expectCode(t, r, 1, "get of a typo")
	if !strings.Contains(r.stderr, `Did you mean "fs"?`) {
		t.Errorf("get fss: %q", r.stderr)
	}

	// No refresh: call starts the server, lists it, updates the cache, then calls.
	hello := filepath.Join(e.project, "hello.txt")
	r = e.run("call", "fs", "read_text_file", `{"path":"`+hello+`"}`)
	expectCode(t, r, 0, "call before any refresh")
	if !strings.Contains(r.stdout, "hello from the project") {
		t.Fatalf("call printed %q", r.stdout)
	}
	decodeJSON(t, "list --json", e.run("list", "--json"), &list)
	if list[0].Cache != mcpcmd.CacheFresh || list[0].Tools < 10 {
		t.Fatalf("call did not fill the cache: %+v", list[0])
	}
	// The names `tools` prints, and '-' for '_', reach the same tool; a real typo still
	// gets "did you mean".
	for _, args := range [][]string{
		{"call", "mcp__fs__read_text_file", `{"path":"` + hello + `"}`},
		{"call", "fs", "mcp__fs__read_text_file", `{"path":"` + hello + `"}`},
		{"call", "fs", "read-text-file", `{"path":"` + hello + `"}`},
	} {
		r = e.run(args...)
		expectCode(t, r, 0, strings.Join(args[:len(args)-1], " "))
		if !strings.Contains(r.stdout, "hello from the project") {
			t.Errorf("%v printed %q", args, r.stdout)
		}
	}
	r = e.run("call", "fs", "read_txt_file", `{"path":"`+hello+`"}`)
	expectCode(t, r, 1, "call of a typo")
	if !strings.Contains(r.stdout, `Did you mean "read_text_file"`) || !strings.Contains(r.stdout, "mcp-bridge tools --server fs") ||
		strings.Contains(r.stdout, "mcp__call_tool") {
		t.Errorf("typo answer: %q", r.stdout)
	}

	var tools []toolJSON
	decodeJSON(t, "tools --json", e.run("tools", "--json"), &tools)
	if !slices.ContainsFunc(tools, func(x toolJSON) bool {
		return x.Name == "mcp__fs__read_text_file" && x.Server == "fs" && x.Tool == "read_text_file" && x.Description != ""
	}) {
		t.Fatalf("tools --json lacks read_text_file: %+v", tools)
	}
	var hits []bridge.SearchHit
	decodeJSON(t, "search --json", e.run("search", "read the contents of a text file", "--json", "--limit", "3"), &hits)
	if len(hits) == 0 || len(hits) > 3 || !slices.ContainsFunc(hits, func(h bridge.SearchHit) bool { return h.Name == "mcp__fs__read_text_file" && len(h.InputSchema) > 0 }) {
		t.Fatalf("search --json: %+v", hits)
	}
	var doc doctorJSON
	decodeJSON(t, "doctor --json", e.run("doctor", "--json"), &doc)
	if !doc.OK || len(doc.Servers) != 2 || doc.Servers[0].Name != "fs" || doc.Servers[0].Status != "ok" || doc.Servers[0].Tools < 10 ||
		doc.Servers[1].Status != "disabled" || doc.Exposure.Legacy.Mode != "proxy" || doc.Exposure.Newer.Mode != "deferred" || len(doc.Files) != 2 {
		t.Fatalf("doctor --json: %+v", doc)
	}

	r = e.run("remove", "fs")
	expectCode(t, r, 0, "remove")
	if !strings.Contains(r.stdout, `Removed MCP server "fs" from `+e.globalPath()) {
		t.Errorf("remove output: %s", r.stdout)
	}
	servers = readServers(t, e.globalPath())
	if _, ok := servers["fs"]; ok || servers["keep"].Command != "keep-me" {
		t.Fatalf("config after remove: %+v", servers)
	}
	if data, _ := os.ReadFile(e.globalPath()); !bytes.Contains(data, []byte("// written by the CLI test")) {
		t.Errorf("remove lost the file's comment:\n%s", data)
	}
	r = e.run("remove", "fs")
	expectCode(t, r, 1, "remove again")
	if !strings.Contains(r.stderr, `no server "fs"`) {
		t.Errorf("second remove: %q", r.stderr)
	}
}

func mustRegexp(p string) *regexp.Regexp { return regexp.MustCompile(p) }

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

// regexpLine reports whether some line of out matches pattern.
func regexpLine(out, pattern string) bool {
	re := mustRegexp(pattern)
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(strings.TrimRight(l, " ")) {
			return true
		}
	}
	return false
}

// Remote entries, scopes, --force and replacing; values given literally never show.
func TestCLIAddRemoteAndScopes(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	r := e.run("add", "web", "--project", "--url", "https://example.invalid/mcp", "--transport", "http",
		"--header", "Authorization: Bearer ${WEB_TOKEN}", "--header", "X-Key: planted-header-value")
	expectCode(t, r, 0, "add --url")
	if strings.Contains(r.all(), "planted-header-value") {
		t.Fatalf("add printed a header value:\n%s", r.all())
	}
	data, err := os.ReadFile(e.projectPath())
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Type    string            `json:"type"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if w := file.MCPServers["web"]; w.URL != "https://example.invalid/mcp" || w.Type != "http" || w.Headers["Authorization"] != "Bearer ${WEB_TOKEN}" || w.Headers["X-Key"] != "planted-header-value" {
		t.Fatalf("project file: %s", data)
	}
	var info mcpcmd.ServerInfo
	r = e.run("get", "web", "--json")
	decodeJSON(t, "get web --json", r, &info)
	if strings.Contains(r.all(), "planted-header-value") || info.Headers["Authorization"] != "<set, uses ${WEB_TOKEN}>" || info.Headers["X-Key"] != "<set>" ||
		info.Scope != "project" || info.Transport != "streamable-http" || info.URL != "https://example.invalid/mcp" {
		t.Fatalf("get web --json: %+v\n%s", info, r.stdout)
	}

	// The same name globally too: remove must be told which one.
	expectCode(t, e.run("add", "web", "--url", "https://example.invalid/other"), 0, "add web globally")
	r = e.run("add", "web", "--url", "https://example.invalid/again")
	expectCode(t, r, 1, "add existing")
	if !strings.Contains(r.stderr, "already exists") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("adding an existing name: %q", r.stderr)
	}
	// As claude mcp add takes it: the URL after the name.
	r = e.run("add", "--transport", "sse", "--force", "web", "https://example.invalid/sse")
	expectCode(t, r, 0, "add --force")
	if !strings.Contains(r.stdout, `Replaced remote MCP server "web"`) {
		t.Errorf("--force output: %q", r.stdout)
	}
	r = e.run("remove", "web")
	expectCode(t, r, 1, "remove from two files")
	if !strings.Contains(r.stderr, "--global or --project") {
		t.Errorf("remove of a name in both files: %q", r.stderr)
	}
	expectCode(t, e.run("remove", "web", "--project"), 0, "remove --project")
	var list []mcpcmd.ServerInfo
	decodeJSON(t, "list --json", e.run("list", "--json"), &list)
	if len(list) != 1 || list[0].Scope != "global" || list[0].Transport != "sse" {
		t.Fatalf("after remove --project: %+v", list)
	}
}

// Bad input is refused with a clear error, and nothing is written.
func TestCLIAddRejects(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"space in name", []string{"add", "my server", "--", "x"}, 2, `server name "my server" has the character ' '`},
		{"slash in name", []string{"add", "a/b", "--", "x"}, 2, `has the character '/'`},
		{"long name", []string{"add", strings.Repeat("n", 65), "--", "x"}, 2, "the limit is 64"},
		{"no name", []string{"add"}, 2, "NAME is missing"},
		{"nothing to run", []string{"add", "x"}, 2, "say what to run"},
		{"url and command", []string{"add", "x", "--url", "https://h/mcp", "--", "cmd"}, 2, "not both"},
		{"bad url", []string{"add", "x", "--url", "ftp://h/mcp"}, 2, "http:// or https://"},
		{"bad transport", []string{"add", "x", "--url", "https://h/mcp", "--transport", "ws"}, 2, "--transport must be http or sse"},
		{"transport for a command", []string{"add", "x", "--transport", "http", "--", "cmd"}, 2, "needs --url"},
		{"bad env", []string{"add", "x", "--env", "NOVALUE", "--", "cmd"}, 2, "--env must look like NAME=value"},
		{"env for a url", []string{"add", "x", "--env", "A=b", "--url", "https://h/mcp"}, 2, "--env is for command servers"},
		{"bad header", []string{"add", "x", "--header", "no colon", "--url", "https://h/mcp"}, 2, "--header must look like"},
		{"header for a command", []string{"add", "x", "--header", "A: b", "--", "cmd"}, 2, "--header is for remote servers"},
		{"both scopes", []string{"add", "x", "--global", "--project", "--", "cmd"}, 2, "exclude each other"},
		// The quoted name reaches setup add whole (it used to be split at the space).
		{"setup add quoted name", []string{"setup", "add", "memory", "--name", "my server"}, 1, `server name "my server" has the character ' '`},
		{"setup add with a command", []string{"setup", "add", "myserver", "--", "npx", "-y", "foo"}, 1, "mcp-bridge add NAME -- COMMAND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(tc.args...)
			expectCode(t, r, tc.code, strings.Join(tc.args, " "))
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
			}
		})
	}
	for _, p := range []string{e.globalPath(), e.projectPath()} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused add wrote %s", p)
		}
	}
	// A good --name with '-' and '_' is taken as given.
	r := e.run("setup", "add", "memory", "--name", "my_mem-1")
	expectCode(t, r, 0, "setup add --name my_mem-1")
	if _, ok := readServers(t, e.globalPath())["my_mem-1"]; !ok {
		t.Errorf("setup add --name did not write my_mem-1")
	}
}

// A JSON syntax error in one file: every command names the file (once, in words), refresh
// and a call that needs a server of that file exit non-zero, and the counts are true.
func TestCLIBrokenConfigFile(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"good": e.fake()})
	if err := os.MkdirAll(filepath.Dir(e.projectPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.projectPath(), []byte("{\"mcpServers\": {\"lost\": {\"command\": \"x\",}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int // -1: any non-zero
	}{
		{[]string{"refresh"}, 1},
		{[]string{"call", "lost", "echo", `{"text":"hi"}`}, 1},
		{[]string{"refresh", "--server", "lost"}, 1},
		{[]string{"doctor"}, 1},
		{[]string{"list"}, 1},
		{[]string{"get", "good"}, 0},
		{[]string{"get", "lost"}, 1},
		{[]string{"tools"}, 0},
		{[]string{"search", "echo"}, 0},
		{[]string{"call", "good", "echo", `{"text":"hi"}`}, 0},
		{[]string{"setup", "templates"}, 0},
		{[]string{"logout", "lost"}, 1},
		{[]string{"login", "lost"}, 1},
		{[]string{"add", "other", "--", "cmd"}, 0},
		{[]string{"remove", "other"}, 0},
	} {
		what := strings.Join(tc.args, " ")
		r := e.run(tc.args...)
		if tc.code == 0 {
			expectCode(t, r, 0, what)
		} else if r.code == 0 {
			t.Errorf("%s exited 0 with a broken config file:\n%s", what, r.all())
		}
		if n := strings.Count(r.all(), e.projectPath()); n != 1 {
			t.Errorf("%s names the broken file %d times, want once:\n%s", what, n, r.all())
		}
		noLogLines(t, what, r)
	}
	r := e.run("refresh")
	if !strings.Contains(r.stdout, "Refreshed 1 of 1 server") || !strings.Contains(r.stderr, "broken") {
		t.Errorf("refresh with a broken file:\n%s", r.all())
	}
	r = e.run("call", "lost", "echo", `{"text":"hi"}`)
	if !strings.Contains(r.stderr, `server "lost" may be defined in the broken config file`) {
		t.Errorf("call of a server of the broken file:\n%s", r.all())
	}
}

// With nothing cached and nothing fetching, search says so and names the command that
// lists tools, instead of "still being fetched".
func TestCLISearchBeforeRefresh(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake()})
	r := e.run("search", "echo")
	expectCode(t, r, 0, "search")
	if strings.Contains(r.stdout, "being fetched") || !strings.Contains(r.stdout, "mcp-bridge refresh") {
		t.Errorf("search before any refresh: %q", r.stdout)
	}
	var hits []bridge.SearchHit
	r = e.run("search", "echo", "--json")
	decodeJSON(t, "search --json", r, &hits)
	if len(hits) != 0 || !strings.Contains(r.stderr, "mcp-bridge refresh") {
		t.Errorf("search --json before any refresh: %v %q", hits, r.stderr)
	}
}

// lineReader runs the binary and hands out its stdout line by line as they are written.
func (e *cliEnv) startLines(args ...string) (lines <-chan string, wait func() cliResult) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env, cmd.Dir = e.vars, e.project
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ch := make(chan string, 64)
	var all strings.Builder
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			ch <- sc.Text()
		}
	}()
	return ch, func() cliResult {
		for range ch {
		}
		<-readDone
		err := cmd.Wait()
		cancel()
		r := cliResult{stdout: all.String(), stderr: stderr.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		return r
	}
}

// refresh and doctor print each server's line as it finishes: the fast server's line
// arrives while the slow one is still connecting.
func TestCLIProgressLines(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"refresh", "doctor"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			e := newCLIEnv(t)
			slow := e.fake("-hang-start")
			slow["connectTimeout"] = 2
			e.writeConfig(e.globalPath(), map[string]any{"fast": e.fake(), "slow": slow})
			lines, wait := e.startLines(cmd)
			var seen []string
			for l := range lines {
				seen = append(seen, l)
				if f := strings.Fields(l); len(f) > 1 && f[0] == "fast" {
					break
				}
			}
			for _, l := range seen {
				if strings.Contains(l, "slow") {
					t.Errorf("%s printed the slow server before the fast one: %q", cmd, seen)
				}
			}
			if len(seen) == 0 || !strings.Contains(seen[len(seen)-1], "ok: 13 tools in ") {
				t.Errorf("%s: fast line = %q", cmd, seen)
			}
			r := wait()
			if r.code != 1 || !regexpLine(r.stdout, `^  slow\s+FAILED after \S+: `) {
				t.Errorf("%s: exit %d, output:\n%s", cmd, r.code, r.all())
			}
			testutil.KillProcsWithMarker(e.marker)
		})
	}
}

// doctor says what the exposure mode will be on each kind of zot, instead of guessing
// which zot will run it.
func TestCLIDoctorExposure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		setting string
		want    []string
		json    [2]string // released zot, newer zot
	}{
		{"", []string{`Tool exposure (toolExposure "auto"):`, "released zot (v0.1.62, no capabilities): proxy", "newer zot (announces capabilities):      deferred"}, [2]string{"proxy", "deferred"}},
		{"deferred", []string{"Tool exposure: deferred on every zot (toolExposure \"deferred\" set in "}, [2]string{"deferred", "deferred"}},
		{"direct", []string{"Tool exposure: direct on every zot"}, [2]string{"direct", "direct"}},
	} {
		t.Run("toolExposure="+tc.setting, func(t *testing.T) {
			t.Parallel()
			e := newCLIEnv(t)
			top := map[string]any{"mcpServers": map[string]any{}}
			if tc.setting != "" {
				top["toolExposure"] = tc.setting
			}
			raw, _ := json.Marshal(top)
			if err := os.WriteFile(e.globalPath(), raw, 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.run("doctor")
			expectCode(t, r, 0, "doctor")
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("doctor lacks %q:\n%s", w, r.stdout)
				}
			}
			var doc doctorJSON
			decodeJSON(t, "doctor --json", e.run("doctor", "--json"), &doc)
			if doc.Exposure.Legacy.Mode != tc.json[0] || doc.Exposure.Newer.Mode != tc.json[1] || doc.Exposure.Legacy.Why == "" {
				t.Errorf("doctor --json exposure: %+v", doc.Exposure)
			}
		})
	}
}

// The JSON log stays off the terminal unless MCP_BRIDGE_LOG asks for it.
func TestCLILogOnlyOnRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vars []string
		want bool
	}{
		{nil, false},
		{[]string{cli.LogLevelEnv + "=debug"}, true},
	} {
		e := newCLIEnv(t, tc.vars...)
		// A failing server is what used to print its error twice: as words and as a
		// warn-level JSON line.
		// dead is pinned legacy: with its era unknown, a server that exits at once is spawned
		// again for initialize (an exit on the probe), and its tail then holds both lines.
		dead := e.fake("-exit-on-start")
		dead["protocolVersion"] = "2025-11-25"
		e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake(), "dead": dead})
		r := e.run("refresh")
		expectCode(t, r, 1, "refresh")
		if n := strings.Count(r.all(), "fatal: boom"); !tc.want && n != 1 {
			t.Errorf("the failure is printed %d times, want once:\n%s", n, r.all())
		}
		if got := strings.Contains(r.stderr, `{"level"`); got != tc.want {
			t.Errorf("with %v: JSON log lines on stderr = %v, want %v:\n%s", tc.vars, got, tc.want, r.stderr)
		}
	}
}

// TestCLIRemoveInSeveralFiles: remove never picks one of several files that define the
// name, and its hint names only flags that choose one. With three files it used to remove
// the global entry silently (the project ones stayed in effect), and with two project
// files and --project it said "say which with --global or --project".
func TestCLIRemoveInSeveralFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		claude   bool // .mcp.json defines it too
		args     []string
		want     []string
		dontWant []string
	}{
		{name: "global, .zot and .mcp.json", claude: true, args: []string{"remove", "x"},
			want:     []string{"global", ".zot", ".mcp.json", "--global"},
			dontWant: []string{"--global or --project"}},
		{name: "two project files with --project", claude: true, args: []string{"remove", "x", "--project"},
			want:     []string{".zot", ".mcp.json", "by hand"},
			dontWant: []string{"--global", "say which"}},
		{name: "global and .zot", args: []string{"remove", "x"},
			want: []string{"--global or --project"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newCLIEnv(t)
			e.writeConfig(e.globalPath(), map[string]any{"x": map[string]any{"command": "g"}})
			e.writeConfig(e.projectPath(), map[string]any{"x": map[string]any{"command": "p"}})
			if tc.claude {
				e.writeConfig(filepath.Join(e.project, ".mcp.json"), map[string]any{"x": map[string]any{"command": "c"}})
			}
			before := e.run("list", "--json").stdout
			r := e.run(tc.args...)
			expectCode(t, r, 1, strings.Join(tc.args, " "))
			// The temporary directories are named after the test, flags and all.
			msg := strings.NewReplacer(e.home, "global", e.project, "proj").Replace(r.stderr)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q: %s", tc.args, w, r.stderr)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(msg, w) {
					t.Errorf("%q names %q, which does not choose one file: %s", tc.args, w, r.stderr)
				}
			}
			if after := e.run("list", "--json").stdout; after != before {
				t.Errorf("%q changed the servers:\nbefore %s\nafter %s", tc.args, before, after)
			}
		})
	}
}
