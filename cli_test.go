package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/cli"
	"github.com/zot-mcp/mcp-bridge/templates"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// cliGuard is a hang guard for CLI runs and process waits, never a measured bound.
const cliGuard = 90 * time.Second

// fakeDefaultTools is how many tools the fake server has without -no-default-tools.
const fakeDefaultTools = 13

// cliEnv is one isolated zot home and project directory for running the built binary.
type cliEnv struct {
	t       *testing.T
	bin     string
	home    string
	project string
	marker  string
	vars    []string
}

func newCLIEnv(t *testing.T, extraVars ...string) *cliEnv {
	t.Helper()
	e := &cliEnv{t: t, bin: testutil.BuildBinary(t, "github.com/zot-mcp/mcp-bridge"), home: t.TempDir(),
		project: t.TempDir(), marker: testutil.NewMarker(t)}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "ZOT_HOME" || k == cli.LogLevelEnv || k == "MISSING_TOKEN" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "ZOT_HOME="+e.home)
	e.vars = append(e.vars, extraVars...)
	t.Cleanup(func() { testutil.KillProcsWithMarker(e.marker) })
	return e
}

// fake is a stdio server entry running the fake MCP server tagged with the env's marker.
func (e *cliEnv) fake(extra ...string) map[string]any {
	return map[string]any{"command": testutil.FakeServer(e.t),
		"args": append([]string{"-marker", e.marker, "-max-lifetime", "5m"}, extra...)}
}

// writeConfig writes an mcp.json (with a comment, as users write them) at path.
func (e *cliEnv) writeConfig(path string, servers map[string]any) {
	e.t.Helper()
	raw, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte("// written by the CLI test\n"), raw...), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *cliEnv) globalPath() string  { return filepath.Join(e.home, "mcp.json") }
func (e *cliEnv) projectPath() string { return filepath.Join(e.project, ".zot", "mcp.json") }

type cliResult struct {
	stdout, stderr string
	code           int
}

func (r cliResult) all() string { return r.stdout + r.stderr }

// run runs the binary from the project directory with stdin not a terminal, then checks
// that no fake server process (found by the marker) outlives the command.
func (e *cliEnv) run(args ...string) cliResult {
	e.t.Helper()
	return e.runIn(e.project, args...)
}

func (e *cliEnv) runIn(dir string, args ...string) cliResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = e.vars
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("mcp-bridge %q hung (killed by the hang guard)\nstdout:\n%s\nstderr:\n%s", args, stdout.String(), stderr.String())
	}
	r := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), cliGuard)
	defer wcancel()
	if left := testutil.WaitNoProcs(wctx, e.marker); len(left) > 0 {
		e.t.Fatalf("after mcp-bridge %q, server processes are left: %v", args, left)
	}
	return r
}

// expectCode fails the test unless r exited with want.
func expectCode(t *testing.T, r cliResult, want int, what string) {
	t.Helper()
	if r.code != want {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, want, r.stdout, r.stderr)
	}
}

// serverLine returns the doctor line of server name (its lines start with two spaces and
// the padded name).
func serverLine(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == name && strings.HasPrefix(l, "  ") {
			return l
		}
	}
	t.Fatalf("doctor output has no line for server %q:\n%s", name, out)
	return ""
}

// recordLen counts the lines of a fake server -record file.
func recordLen(t *testing.T, path string) int { return len(testutil.ReadRecord(t, path)) }

func TestCLIDoctorGood(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake("-name", "alpha")})
	e.writeConfig(e.projectPath(), map[string]any{"beta": e.fake("-name", "beta", "-tools", "2")})

	check := func(r cliResult) {
		t.Helper()
		expectCode(t, r, 0, "doctor")
		for _, want := range []string{
			"global   " + e.globalPath() + " — read",
			"project  " + e.projectPath() + " — read",
			"Servers (2):",
			"All good.",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
			}
		}
		if l := serverLine(t, r.stdout, "alpha"); !strings.Contains(l, "ok: 13 tools") || !strings.Contains(l, e.globalPath()) {
			t.Errorf("alpha line = %q, want ok: 13 tools from %s", l, e.globalPath())
		}
		if l := serverLine(t, r.stdout, "beta"); !strings.Contains(l, "ok: 15 tools") || !strings.Contains(l, e.projectPath()) {
			t.Errorf("beta line = %q, want ok: 15 tools from %s", l, e.projectPath())
		}
	}
	// The project server waits for approval: doctor says so and does not start it.
	r := e.run("doctor")
	expectCode(t, r, 1, "doctor before approval")
	if l := serverLine(t, r.stdout, "beta"); !strings.Contains(l, "NEEDS APPROVAL: runs `") || !strings.Contains(l, "mcp-bridge trust beta") {
		t.Errorf("beta line before approval = %q", l)
	}
	expectCode(t, e.run("trust", "beta"), 0, "trust beta")
	check(e.run("doctor"))
	// From elsewhere, --cwd names the project.
	check(e.runIn(t.TempDir(), "doctor", "--cwd", e.project))
}

func TestCLIDoctorProblemsWithoutSecrets(t *testing.T) {
	t.Parallel()
	var b [12]byte
	_, _ = rand.Read(b[:])
	secret := "planted-secret-" + hex.EncodeToString(b[:])
	e := newCLIEnv(t, "PLANTED_SECRET="+secret, cli.LogLevelEnv+"=debug")
	e.writeConfig(e.globalPath(), map[string]any{
		// A missing variable next to a literal secret in the same env.
		"tokened": map[string]any{"command": testutil.FakeServer(t), "args": []string{"-marker", e.marker},
			"env": map[string]any{"API_TOKEN": "${MISSING_TOKEN}", "LITERAL_KEY": secret}},
		// A command that does not exist, with a secret from a set variable in its env.
		"ghost": map[string]any{"command": "/nonexistent/bin/server", "args": []string{"-marker", e.marker},
			"env": map[string]any{"KEY": "${PLANTED_SECRET}", "LITERAL_KEY": secret}},
		// A bad URL, with a literal secret header and one from a set variable.
		"web": map[string]any{"type": "http", "url": "not a url",
			"headers": map[string]any{"Authorization": "Bearer " + secret, "X-Key": "${PLANTED_SECRET}"}},
		"good": e.fake(),
	})
	r := e.run("doctor")
	if r.code == 0 {
		t.Fatalf("doctor exited 0 on a broken config:\n%s", r.all())
	}
	if strings.Contains(r.all(), secret) {
		t.Fatalf("the planted secret appears in doctor's output:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if l := serverLine(t, r.stdout, "tokened"); !strings.Contains(l, "CONFIG ERROR") || !strings.Contains(l, "MISSING_TOKEN") || !strings.Contains(l, "env.API_TOKEN") {
		t.Errorf("tokened line does not name the missing variable and its field: %q", l)
	}
	if l := serverLine(t, r.stdout, "ghost"); !strings.Contains(l, "FAILED") || !strings.Contains(l, "/nonexistent/bin/server") {
		t.Errorf("ghost line does not name the missing command: %q", l)
	}
	if l := serverLine(t, r.stdout, "web"); !strings.Contains(l, "CONFIG ERROR") || !strings.Contains(l, "url:") {
		t.Errorf("web line does not name the url field: %q", l)
	}
	if l := serverLine(t, r.stdout, "good"); !strings.Contains(l, "ok: 13 tools") {
		t.Errorf("good server line = %q, want ok: 13 tools", l)
	}
	if !strings.Contains(r.stdout, "Something needs attention") || strings.Contains(r.stdout, "All good.") {
		t.Errorf("doctor's verdict is wrong:\n%s", r.stdout)
	}
}

// toolLines returns the tool names `tools` printed (the first column).
func toolLines(out string) []string {
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if n, _, _ := strings.Cut(l, "\t"); n != "" {
			names = append(names, n)
		}
	}
	return names
}

func countPrefix(names []string, prefix string) int {
	n := 0
	for _, s := range names {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func TestCLITools(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	rec := filepath.Join(t.TempDir(), "alpha.jsonl")
	e.writeConfig(e.globalPath(), map[string]any{
		"alpha": e.fake("-name", "alpha", "-record", rec),
		"beta":  e.fake("-name", "beta", "-tools", "2"),
	})

	r := e.run("tools")
	expectCode(t, r, 0, "tools before refresh")
	if strings.TrimSpace(r.stdout) != "" || !strings.Contains(r.stderr, "mcp-bridge refresh") {
		t.Fatalf("tools with an empty cache: stdout %q, stderr %q; want nothing listed and a hint to refresh", r.stdout, r.stderr)
	}

	r = e.run("refresh")
	expectCode(t, r, 0, "refresh")
	if !strings.Contains(r.stdout, "Refreshed 2 of 2") {
		t.Fatalf("refresh output: %s", r.stdout)
	}
	spawned := recordLen(t, rec)
	if spawned == 0 {
		t.Fatal("refresh did not reach alpha (its record is empty)")
	}

	r = e.run("tools")
	expectCode(t, r, 0, "tools")
	all := toolLines(r.stdout)
	if len(all) != 2*fakeDefaultTools+2 || countPrefix(all, "mcp__alpha__") != fakeDefaultTools || countPrefix(all, "mcp__beta__") != fakeDefaultTools+2 {
		t.Fatalf("tools listed %d tools, want %d alpha and %d beta:\n%s", len(all), fakeDefaultTools, fakeDefaultTools+2, r.stdout)
	}
	for _, want := range []string{"mcp__alpha__echo", "mcp__alpha__add", "mcp__beta__gen_0000", "mcp__beta__gen_0001"} {
		if !slices.Contains(all, want) {
			t.Errorf("tools does not list %s", want)
		}
	}
	if !strings.Contains(r.stdout, "mcp__alpha__echo\tEcho the given text back.") {
		t.Errorf("tools does not show descriptions:\n%s", r.stdout)
	}
	if n := recordLen(t, rec); n != spawned {
		t.Errorf("tools reached a server (record grew from %d to %d lines); it must read the cache only", spawned, n)
	}

	// --json carries each tool's input schema, as the model sees it.
	var alpha []toolJSON
	decodeJSON(t, "tools --server alpha --json", e.run("tools", "--server", "alpha", "--json"), &alpha)
	if i := slices.IndexFunc(alpha, func(x toolJSON) bool { return x.Tool == "echo" }); i < 0 ||
		!strings.Contains(string(alpha[i].InputSchema), `"text"`) || !strings.Contains(string(alpha[i].InputSchema), `"required"`) {
		t.Errorf("tools --json: echo without its input schema: %+v", alpha)
	}

	r = e.run("tools", "--server", "beta")
	expectCode(t, r, 0, "tools --server beta")
	beta := toolLines(r.stdout)
	if len(beta) != fakeDefaultTools+2 || countPrefix(beta, "mcp__beta__") != len(beta) {
		t.Fatalf("tools --server beta listed %v", beta)
	}

	r = e.run("tools", "--server", "gamma")
	expectCode(t, r, 1, "tools --server gamma")
	if !strings.Contains(r.stderr, `unknown server "gamma"`) || !strings.Contains(r.stderr, "alpha, beta") || r.stdout != "" {
		t.Fatalf("unknown server: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

func TestCLISearchAndCall(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	rec := filepath.Join(t.TempDir(), "alpha.jsonl")
	e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake("-name", "alpha", "-record", rec)})
	expectCode(t, e.run("refresh"), 0, "refresh")

	r := e.run("search", "add two numbers", "--zot", "newer")
	expectCode(t, r, 0, "search")
	var first string
	for _, l := range strings.Split(r.stdout, "\n") {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			first, _, _ = strings.Cut(rest, ":")
			break
		}
	}
	if first != "mcp__alpha__add" {
		t.Fatalf("first search result = %q, want mcp__alpha__add:\n%s", first, r.stdout)
	}

	r = e.run("call", "alpha", "echo", `{"text":"hi"}`)
	expectCode(t, r, 0, "call echo")
	if strings.TrimSpace(r.stdout) != "hi" {
		t.Fatalf("call echo printed %q, want hi", r.stdout)
	}
	lines := testutil.ReadRecord(t, rec)
	if !slices.ContainsFunc(lines, func(l testutil.RecordLine) bool { return l.Method == "tools/call" && l.Tool == "echo" }) {
		t.Fatalf("the echo call is not in alpha's record: %+v", lines)
	}

	noServerReached := func(what string, args ...string) cliResult {
		t.Helper()
		before := recordLen(t, rec)
		r := e.run(args...)
		expectCode(t, r, 1, what)
		if after := recordLen(t, rec); after != before {
			t.Errorf("%s reached the server: its record grew from %d to %d lines", what, before, after)
		}
		return r
	}
	r = noServerReached("schema-violating call", "call", "alpha", "echo", `{"text":5}`)
	if !strings.Contains(r.stdout, "do not match its input schema") || !strings.Contains(r.stdout, "/text") {
		t.Errorf("schema violation message is unclear: %q", r.stdout)
	}
	r = noServerReached("call missing a required argument", "call", "alpha", "echo")
	if !strings.Contains(r.stdout, "missing property 'text'") {
		t.Errorf("missing-argument message is unclear: %q", r.stdout)
	}
	r = noServerReached("call with invalid JSON", "call", "alpha", "echo", `{text: hi}`)
	if !strings.Contains(r.stdout, "not valid JSON") {
		t.Errorf("invalid JSON message is unclear: %q", r.stdout)
	}
	r = noServerReached("call to a misspelled server", "call", "alpah", "echo", `{"text":"hi"}`)
	if !strings.Contains(r.stdout, `unknown MCP server "alpah"`) || !strings.Contains(r.stdout, `Did you mean "alpha"?`) {
		t.Errorf("bad server name message does not suggest alpha: %q", r.stdout)
	}
	r = noServerReached("call to a misspelled tool", "call", "alpha", "ecko", `{"text":"hi"}`)
	if !strings.Contains(r.stdout, `Did you mean "echo"?`) {
		t.Errorf("bad tool name message does not suggest echo: %q", r.stdout)
	}
}

// readServers parses a JSONC config file's mcpServers.
func readServers(t *testing.T, path string) map[string]struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
} {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("%s is not JSONC: %v\n%s", path, err, data)
	}
	var top struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(std, &top); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return top.MCPServers
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %o, want 0600", path, st.Mode().Perm())
	}
}

func TestCLISetup(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	r := e.run("setup", "templates")
	expectCode(t, r, 0, "setup templates")
	ts, err := templates.All()
	if err != nil || len(ts) == 0 {
		t.Fatalf("templates: %v (%d)", err, len(ts))
	}
	for _, tm := range ts {
		if !strings.Contains(r.stdout, "  "+tm.Name+" ") || !strings.Contains(r.stdout, tm.Description) {
			t.Errorf("setup templates does not list %s (%s):\n%s", tm.Name, tm.Description, r.stdout)
		}
	}

	dir := t.TempDir()
	file := filepath.Join(dir, ".zot", "mcp.json")
	r = e.run("setup", "add", "memory", "--project", "--cwd", dir)
	expectCode(t, r, 0, "setup add memory")
	if !strings.Contains(r.stdout, `Added MCP server "memory"`) || !strings.Contains(r.stdout, file) {
		t.Errorf("setup add output: %q", r.stdout)
	}
	checkMode(t, file)
	mem, ok := readServers(t, file)["memory"]
	if !ok || mem.Command != "npx" || !slices.Contains(mem.Args, "@modelcontextprotocol/server-memory") {
		t.Fatalf("memory entry = %+v (present %v)", mem, ok)
	}
	for _, p := range []string{e.globalPath(), e.projectPath()} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("--project --cwd DIR touched %s (stat: %v)", p, err)
		}
	}

	before, _ := os.ReadFile(file)
	r = e.run("setup", "add", "memory", "--project", "--cwd", dir)
	expectCode(t, r, 1, "setup add memory again")
	if !strings.Contains(r.stderr, "--force") || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("adding again does not point at --force: %q", r.stderr)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Errorf("a refused add changed the file:\n%s", after)
	}

	// Hand-edit the entry, keep another server and a comment; --force restores the template.
	e.writeConfig(file, map[string]any{
		"memory": map[string]any{"command": "custom-memory"},
		"keep":   map[string]any{"command": "keep-me"},
	})
	r = e.run("setup", "add", "memory", "--project", "--force", "--cwd="+dir)
	expectCode(t, r, 0, "setup add memory --force")
	if !strings.Contains(r.stdout, `Replaced MCP server "memory"`) {
		t.Errorf("--force output: %q", r.stdout)
	}
	checkMode(t, file)
	servers := readServers(t, file)
	if m := servers["memory"]; m.Command != "npx" || !slices.Contains(m.Args, "@modelcontextprotocol/server-memory") {
		t.Errorf("--force did not replace the entry: %+v", m)
	}
	if servers["keep"].Command != "keep-me" {
		t.Errorf("--force lost the other server: %+v", servers)
	}
	if data, _ := os.ReadFile(file); !bytes.Contains(data, []byte("// written by the CLI test")) {
		t.Errorf("--force lost the file's comment:\n%s", data)
	}
}

func TestCLIHelpAndUnknownCommand(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := e.run(args...)
		expectCode(t, r, 0, strings.Join(args, " "))
		for _, want := range []string{"mcp-bridge doctor", "mcp-bridge call SERVER TOOL", "mcp-bridge setup add", "Each command takes --help"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: usage lacks %q:\n%s", args, want, r.stdout)
			}
		}
	}
	// Every command takes --help, does nothing else, and succeeds.
	for _, args := range [][]string{
		{"doctor", "--help"}, {"tools", "--help"}, {"search", "--help"}, {"call", "--help"},
		{"refresh", "--help"}, {"setup", "--help"}, {"setup", "add", "--help"}, {"doctor", "-h"},
		{"trust", "--help"}, {"untrust", "--help"},
		{"add", "--help"}, {"add-json", "--help"}, {"remove", "--help"}, {"list", "--help"}, {"get", "--help"}, {"login", "--help"}, {"logout", "--help"},
	} {
		r := e.run(args...)
		expectCode(t, r, 0, strings.Join(args, " "))
		if !strings.Contains(r.all(), "usage: mcp-bridge "+args[0]) {
			t.Errorf("%v does not print its usage:\n%s", args, r.all())
		}
		if strings.Contains(r.all(), "Config files:") || strings.Contains(r.all(), "Added MCP server") {
			t.Errorf("%v ran the command instead of only printing help:\n%s", args, r.all())
		}
	}
	if _, err := os.Stat(e.globalPath()); !os.IsNotExist(err) {
		t.Errorf("a --help run wrote %s", e.globalPath())
	}

	r := e.run("frobnicate")
	expectCode(t, r, 2, "unknown command")
	if !strings.Contains(r.stderr, `unknown command "frobnicate"`) || !strings.Contains(r.stderr, "see mcp-bridge --help") {
		t.Errorf("unknown command message: %q", r.stderr)
	}
	r = e.run("doctor", "--no-such-flag")
	expectCode(t, r, 2, "unknown flag")
	if !strings.Contains(r.stderr, "no-such-flag") {
		t.Errorf("unknown flag message: %q", r.stderr)
	}
}

// TestRefreshCountsWhenTheCacheCannotBeWritten: after listing both servers the CLI said
// "Refreshed 1 of 2" when only the cache write failed. It now says both were listed and
// the cache was not written (here the cache path is a non-empty directory, which stops
// root too).
func TestRefreshCountsWhenTheCacheCannotBeWritten(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake("-name", "alpha"), "beta": e.fake("-name", "beta")})
	if err := os.MkdirAll(filepath.Join(e.home, "mcp-tools-cache.json", "blocker"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.run("refresh")
	expectCode(t, r, 1, "refresh with an unwritable cache")
	if !strings.Contains(r.stdout, "Listed 2 of 2 servers, but the tool cache could not be written") || strings.Contains(r.stdout, "Refreshed") {
		t.Fatalf("refresh output: %s", r.stdout)
	}
}
