package main

// `mcp-bridge serve` as other MCP clients use it: the config --print-config prints is read
// the way Claude Code, Codex and Gemini CLI read theirs, and an mcp-go client connects the
// way that client would (stdio: the command and environment it would spawn; HTTP: the URL
// and the headers it would send), in both protocol eras.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/cli"
	"github.com/zot-mcp/mcp-bridge/serve"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// serveUser is one user's machine for serve: a HOME whose default zot home (no ZOT_HOME
// set, as a client with a minimal environment starts serve) holds the config, and a
// project directory whose name carries the marker, so that serve processes (started with
// --cwd PROJECT) are found by it as well as the fake servers.
type serveUser struct {
	t       *testing.T
	bin     string
	home    string
	zotHome string
	project string
	marker  string
	// env is the user's shell environment, the one clients start from.
	env []string
}

func newServeUser(t *testing.T) *serveUser {
	t.Helper()
	u := &serveUser{t: t, bin: testutil.BuildBinary(t, "github.com/zot-mcp/mcp-bridge"), home: t.TempDir(), marker: testutil.NewMarker(t)}
	u.project = filepath.Join(t.TempDir(), u.marker)
	u.zotHome = filepath.Join(u.home, ".local", "state", "zot")
	for _, d := range []string{u.project, u.zotHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "ZOT_HOME", "XDG_STATE_HOME", cli.LogLevelEnv, serve.TokenEnv:
		default:
			u.env = append(u.env, kv)
		}
	}
	u.env = append(u.env, "HOME="+u.home)
	t.Cleanup(func() { testutil.KillProcsWithMarker(u.marker) })
	return u
}

// fake is a stdio entry running the fake MCP server tagged with the marker.
func (u *serveUser) fake(extra ...string) map[string]any {
	return map[string]any{"command": testutil.FakeServer(u.t), "args": append([]string{"-marker", u.marker, "-max-lifetime", "5m"}, extra...)}
}

// writeConfig writes an mcp.json holding servers at path.
func (u *serveUser) writeConfig(path string, servers map[string]any) {
	u.t.Helper()
	raw, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		u.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		u.t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		u.t.Fatal(err)
	}
}

// run runs the binary to its end from the project directory.
func (u *serveUser) run(stdin string, args ...string) cliResult {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, u.bin, args...)
	cmd.Env, cmd.Dir = u.env, u.project
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		u.t.Fatalf("mcp-bridge %q hung\nstdout:\n%s\nstderr:\n%s", args, stdout.String(), stderr.String())
	}
	r := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		u.t.Fatal(err)
	}
	return r
}

// noOrphans fails the test if a serve or server process of this user outlives it.
func (u *serveUser) noOrphans(what string) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	if left := testutil.WaitNoProcs(ctx, u.marker); len(left) > 0 {
		u.t.Errorf("after %s, processes are left: %v", what, left)
	}
}

// httpServe is a running `serve --http`: the text it printed on stdout (the client config
// of --print-config) and its process.
type httpServe struct {
	config string
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	exited chan error
}

// startHTTP starts `mcp-bridge serve --http args...` and returns once it says where it
// listens. The test's cleanup stops it with SIGTERM, as a service manager would, and
// checks that it exits cleanly.
func (u *serveUser) startHTTP(args ...string) *httpServe {
	u.t.Helper()
	// stdout is a file: the config is written to it before the listening line goes to
	// stderr, so once that line is read the file holds the whole config.
	out, err := os.Create(filepath.Join(u.t.TempDir(), "stdout"))
	if err != nil {
		u.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(u.bin, append([]string{"serve", "--http"}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stdout = u.env, u.project, out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		u.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	s := &httpServe{cmd: cmd, stderr: &testutil.SyncBuffer{}, exited: make(chan error, 1)}
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		said := false
		for sc.Scan() {
			fmt.Fprintln(s.stderr, sc.Text())
			if !said && strings.HasPrefix(sc.Text(), "mcp-bridge serve: listening on ") {
				said = true
				listening <- true
			}
		}
		if !said {
			listening <- false
		}
		s.exited <- cmd.Wait()
	}()
	u.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
		defer cancel()
		select {
		case err := <-s.exited:
			if err != nil {
				u.t.Errorf("serve --http %q ended with %v after SIGTERM\nstderr:\n%s", args, err, s.stderr.String())
			}
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			u.t.Errorf("serve --http %q did not end on SIGTERM", args)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	select {
	case ok := <-listening:
		if !ok {
			u.t.Fatalf("serve --http %q ended without listening\nstderr:\n%s", args, s.stderr.String())
		}
	case <-ctx.Done():
		u.t.Fatalf("serve --http %q never said where it listens\nstderr:\n%s", args, s.stderr.String())
	}
	raw, err := os.ReadFile(out.Name())
	if err != nil {
		u.t.Fatal(err)
	}
	s.config = string(raw)
	return s
}

// clientServer is what a client's config says about one MCP server, in the terms the
// client acts on: what it spawns (stdio) or what it sends (HTTP).
type clientServer struct {
	command string
	args    []string
	env     []string // the whole environment of the spawned server
	url     string
	headers map[string]string
}

// clientReader reads the text --print-config printed for one client, given the
// environment that client runs in.
type clientReader func(t *testing.T, text string, env []string) clientServer

// claudeVarRE is a variable reference as Claude Code expands it in a server's url and
// headers: ${VAR} or ${VAR:-default}.
var claudeVarRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// geminiVarRE is a variable reference as Gemini CLI expands it in settings.json: $VAR or
// ${VAR}.
var geminiVarRE = regexp.MustCompile(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([^}]+)\})`)

func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// readClaude runs the printed line in a POSIX shell, as the user pastes it, with a
// `claude` that prints the argv the real one would get, and reads that argv as
// `claude mcp add` does. Claude Code stores ${VAR} references and expands them from its
// own environment each time it connects.
func readClaude(t *testing.T, text string, env []string) clientServer {
	t.Helper()
	if strings.Count(strings.TrimSpace(text), "\n") != 0 {
		t.Fatalf("claude: want one command line, got:\n%s", text)
	}
	cmd := exec.Command("sh", "-c", `claude() { printf '%s\0' "$@"; }; `+text)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: the printed line does not run in sh: %v\n%s", err, text)
	}
	argv := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(argv) < 3 || argv[0] != "mcp" || argv[1] != "add" {
		t.Fatalf("claude: argv %q is not claude mcp add", argv)
	}
	expand := func(s string) string {
		return claudeVarRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := claudeVarRE.FindStringSubmatch(m)
			if v, ok := lookup(env, sub[1]); ok {
				return v
			}
			return sub[2]
		})
	}
	var cs clientServer
	transportKind := "stdio"
	var pos []string
	rest := argv[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		switch a {
		case "--scope", "-s", "--transport", "-t", "--header", "-H", "--env", "-e":
			if i+1 >= len(rest) {
				t.Fatalf("claude: %s without a value in %q", a, argv)
			}
			v := rest[i+1]
			i++
			switch a {
			case "--transport", "-t":
				transportKind = v
			case "--header", "-H":
				k, hv, ok := strings.Cut(v, ":")
				if !ok {
					t.Fatalf("claude: header %q is not Name: value", v)
				}
				if cs.headers == nil {
					cs.headers = map[string]string{}
				}
				cs.headers[strings.TrimSpace(k)] = expand(strings.TrimSpace(hv))
			case "--env", "-e":
				cs.env = append(cs.env, v)
			}
		default:
			if strings.HasPrefix(a, "-") {
				t.Fatalf("claude: unknown option %q in %q", a, argv)
			}
			pos = append(pos, a)
		}
	}
	if len(pos) < 2 {
		t.Fatalf("claude: want a name and a URL or command in %q", argv)
	}
	switch transportKind {
	case "http":
		cs.url = expand(pos[1])
		cs.env = nil
	case "stdio":
		cs.command, cs.args = pos[1], pos[2:]
		cs.env = append(slices.Clone(env), cs.env...)
	default:
		t.Fatalf("claude: transport %q", transportKind)
	}
	return cs
}

// codexDefaultEnv are the variables Codex passes from its environment to a stdio server
// without being told (on Unix); env_vars adds to them.
var codexDefaultEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

// readCodex decodes the printed TOML as Codex reads ~/.codex/config.toml.
func readCodex(t *testing.T, text string, env []string) clientServer {
	t.Helper()
	var doc struct {
		MCPServers map[string]struct {
			Command           string            `toml:"command"`
			Args              []string          `toml:"args"`
			Env               map[string]string `toml:"env"`
			EnvVars           []string          `toml:"env_vars"`
			URL               string            `toml:"url"`
			BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
			HTTPHeaders       map[string]string `toml:"http_headers"`
			EnvHTTPHeaders    map[string]string `toml:"env_http_headers"`
		} `toml:"mcp_servers"`
	}
	md, err := toml.Decode(text, &doc)
	if err != nil {
		t.Fatalf("codex: the TOML does not parse: %v\n%s", err, text)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Fatalf("codex: keys Codex would not know: %v", und)
	}
	s, ok := doc.MCPServers[serve.DefaultClientServerName]
	if len(doc.MCPServers) != 1 || !ok {
		t.Fatalf("codex: want one [mcp_servers.%s], got %+v", serve.DefaultClientServerName, doc.MCPServers)
	}
	var cs clientServer
	if s.URL != "" {
		cs.url = s.URL
		cs.headers = map[string]string{}
		for k, v := range s.HTTPHeaders {
			cs.headers[k] = v
		}
		for k, name := range s.EnvHTTPHeaders {
			if v, ok := lookup(env, name); ok {
				cs.headers[k] = v
			}
		}
		if s.BearerTokenEnvVar != "" {
			v, ok := lookup(env, s.BearerTokenEnvVar)
			if !ok {
				t.Fatalf("codex: %s is not set in the client's environment", s.BearerTokenEnvVar)
			}
			cs.headers["Authorization"] = "Bearer " + v
		}
		return cs
	}
	cs.command, cs.args = s.Command, s.Args
	for _, name := range append(slices.Clone(codexDefaultEnv), s.EnvVars...) {
		if v, ok := lookup(env, name); ok {
			cs.env = append(cs.env, name+"="+v)
		}
	}
	for k, v := range s.Env {
		cs.env = append(cs.env, k+"="+v)
	}
	return cs
}

// readGemini reads the printed JSON (with its comment) as Gemini CLI reads
// settings.json, expanding $VAR and ${VAR} from its environment.
func readGemini(t *testing.T, text string, env []string) clientServer {
	t.Helper()
	std, err := hujson.Standardize([]byte(text))
	if err != nil {
		t.Fatalf("gemini: not JSON with comments: %v\n%s", err, text)
	}
	expand := func(s string) string {
		return geminiVarRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := geminiVarRE.FindStringSubmatch(m)
			name := sub[1] + sub[2]
			if v, ok := lookup(env, name); ok {
				return v
			}
			return m
		})
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			Cwd     string            `json:"cwd"`
			URL     string            `json:"url"`
			HTTPURL string            `json:"httpUrl"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	dec := json.NewDecoder(strings.NewReader(string(std)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("gemini: %v\n%s", err, text)
	}
	s, ok := doc.MCPServers[serve.DefaultClientServerName]
	if len(doc.MCPServers) != 1 || !ok {
		t.Fatalf("gemini: want one mcpServers.%s, got %+v", serve.DefaultClientServerName, doc.MCPServers)
	}
	var cs clientServer
	if s.HTTPURL != "" {
		cs.url = expand(s.HTTPURL)
		cs.headers = map[string]string{}
		for k, v := range s.Headers {
			cs.headers[k] = expand(v)
		}
		return cs
	}
	if s.URL != "" {
		t.Fatalf("gemini: url is its SSE transport; streamable HTTP is httpUrl")
	}
	cs.command = expand(s.Command)
	for _, a := range s.Args {
		cs.args = append(cs.args, expand(a))
	}
	cs.env = slices.Clone(env)
	for k, v := range s.Env {
		cs.env = append(cs.env, k+"="+expand(v))
	}
	return cs
}

var serveClients = []struct {
	name string
	read clientReader
}{
	{serve.ClientClaude, readClaude},
	{serve.ClientCodex, readCodex},
	{serve.ClientGemini, readGemini},
}

// serveEras are the protocol versions a client pins.
var serveEras = []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.ProtocolVersion20260728}

// dial connects an mcp-go client to cs as the client would: it spawns cs's command with
// exactly cs's environment, from a directory of its own (clients start servers wherever
// they run), or it posts to cs's URL with cs's headers. notes receives the client's
// notifications.
func dial(t *testing.T, cs clientServer, era string, notes func(mcp.JSONRPCNotification)) *client.Client {
	t.Helper()
	ctx := testCtxFor(t)
	var tr transport.Interface
	if cs.url == "" {
		dir := t.TempDir()
		tr = transport.NewStdioWithOptions(cs.command, nil, cs.args, transport.WithCommandFunc(
			func(_ context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
				cmd := exec.Command(command, args...)
				cmd.Env, cmd.Dir = cs.env, dir
				return cmd, nil
			}))
	} else {
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(cs.headers)}
		if !mcp.IsModernProtocol(era) {
			//lint:ignore SA1019 the standalone GET stream is how a 2025-11-25 client hears of list changes
			opts = append(opts, transport.WithContinuousListening()) // the GET stream, for list changes
		}
		h, err := transport.NewStreamableHTTP(cs.url, opts...)
		if err != nil {
			t.Fatal(err)
		}
		tr = h
	}
	c := client.NewClient(tr, client.WithProtocolVersion(era))
	if notes != nil {
		c.OnNotification(notes)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start the client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = era
	init.Params.ClientInfo = mcp.Implementation{Name: "serve-clients-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize (%s): %v", era, err)
	}
	if got := c.ProtocolVersion(); got != era {
		t.Fatalf("the client speaks %s, want %s", got, era)
	}
	return c
}

func testCtxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	t.Cleanup(cancel)
	return ctx
}

// resultText is the text of a tool result.
func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(testCtxFor(t), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func listToolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(testCtxFor(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// noteWaiter collects the notifications a client gets by method.
type noteWaiter struct{ ch map[string]chan struct{} }

func newNoteWaiter(methods ...string) *noteWaiter {
	w := &noteWaiter{ch: map[string]chan struct{}{}}
	for _, m := range methods {
		w.ch[m] = make(chan struct{}, 16)
	}
	return w
}

func (w *noteWaiter) note(n mcp.JSONRPCNotification) {
	if ch, ok := w.ch[n.Method]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (w *noteWaiter) wait(t *testing.T, method, what string) {
	t.Helper()
	select {
	case <-w.ch[method]:
	case <-testCtxFor(t).Done():
		t.Fatalf("no %s %s", method, what)
	}
}

// useLikeAModel is what a model does with the search and call tools: it finds the echo
// tool by describing the task, calls it through call_tool, and, once the client hears the
// tool list changed, calls the tool the search activated directly.
func useLikeAModel(t *testing.T, c *client.Client, era string) {
	t.Helper()
	w := newNoteWaiter(string(mcp.MethodNotificationToolsListChanged), mcp.MethodNotificationSubscriptionsAcknowledged)
	c.OnNotification(w.note)
	if mcp.IsModernProtocol(era) {
		// 2026-07-28 has no standalone stream: list changes come to a client that listens.
		stop, err := c.ListenAsync(testCtxFor(t), mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) { t.Errorf("subscriptions/listen: %v", err) })
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		defer stop() // before the client closes: its end is no listening error
		w.wait(t, mcp.MethodNotificationSubscriptionsAcknowledged, "for the tools subscription")
	}
	if got, want := listToolNames(t, c), []string{serve.CallTool, serve.SearchTool}; !slices.Equal(got, want) {
		t.Fatalf("tools before a search %q, want %q", got, want)
	}
	res := callTool(t, c, serve.SearchTool, map[string]any{"query": "echo text back"})
	if text := resultText(res); res.IsError || !strings.Contains(text, `server="files"`) || !strings.Contains(text, `tool="echo"`) {
		t.Fatalf("search_tools answered (error %v):\n%s", res.IsError, text)
	}
	res = callTool(t, c, serve.CallTool, map[string]any{"server": "files", "tool": "echo", "arguments": map[string]any{"text": "through call_tool"}})
	if text := resultText(res); res.IsError || text != "through call_tool" {
		t.Fatalf("call_tool answered %q (error %v)", text, res.IsError)
	}
	w.wait(t, string(mcp.MethodNotificationToolsListChanged), "after the search activated tools")
	if got := listToolNames(t, c); !slices.Contains(got, "mcp__files__echo") || !slices.Contains(got, serve.SearchTool) {
		t.Fatalf("tools after the search %q, want mcp__files__echo beside the search and call tools", got)
	}
	res = callTool(t, c, "mcp__files__echo", map[string]any{"text": "directly"})
	if text := resultText(res); res.IsError || text != "directly" {
		t.Fatalf("the activated tool answered %q (error %v)", text, res.IsError)
	}
}

// TestServeClientsStdio: each client's printed stdio config, read as that client reads
// it, starts serve the way that client would (Codex with its minimal environment), and a
// model finds and calls a tool through it, in both eras; when the client closes, serve
// and its servers are gone.
func TestServeClientsStdio(t *testing.T) {
	t.Parallel()
	for _, cl := range serveClients {
		for _, era := range serveEras {
			t.Run(cl.name+"/"+era, func(t *testing.T) {
				t.Parallel()
				u := newServeUser(t)
				u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
				r := u.run("", "serve", "--print-config", cl.name)
				expectCode(t, r, 0, "serve --print-config "+cl.name)
				cs := cl.read(t, r.stdout, u.env)
				if cs.command != u.bin {
					t.Fatalf("%s would run %q, want this binary %q", cl.name, cs.command, u.bin)
				}
				c := dial(t, cs, era, nil)
				useLikeAModel(t, c, era)
				if err := c.Close(); err != nil {
					t.Logf("close: %v", err)
				}
				u.noOrphans(cl.name + " closed its stdio client")
			})
		}
	}
}

// TestServeClientsHTTP: `serve --http --print-config CLIENT` (with the URL's secret path,
// and with --token-file) prints what that client needs; read as the client reads it, with
// the token variable expanded as it expands it, it connects over streamable HTTP, and a
// model finds and calls a tool, in both eras. Without the token the same URL is refused.
func TestServeClientsHTTP(t *testing.T) {
	t.Parallel()
	for _, cl := range serveClients {
		for _, era := range serveEras {
			for _, withToken := range []bool{false, true} {
				auth := "secret path"
				if withToken {
					auth = "token"
				}
				t.Run(cl.name+"/"+era+"/"+auth, func(t *testing.T) {
					t.Parallel()
					u := newServeUser(t)
					u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
					args := []string{"--print-config", cl.name}
					clientEnv := u.env
					token := ""
					if withToken {
						token = "tok-" + strings.Repeat("0123456789abcdef", 2)
						file := filepath.Join(t.TempDir(), "token")
						if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
							t.Fatal(err)
						}
						args = append(args, "--token-file", file)
						clientEnv = append(slices.Clone(u.env), serve.TokenEnv+"="+token)
					}
					// Registered first, so it runs last: after serve's SIGTERM.
					t.Cleanup(func() { u.noOrphans("serve --http ended on SIGTERM") })
					s := u.startHTTP(args...)
					if withToken && strings.Contains(s.config, token) {
						t.Fatalf("the printed config holds the token itself:\n%s", s.config)
					}
					cs := cl.read(t, s.config, clientEnv)
					if cs.url == "" {
						t.Fatalf("%s config names no URL:\n%s", cl.name, s.config)
					}
					if withToken && cs.headers["Authorization"] != "Bearer "+token {
						t.Fatalf("%s would send Authorization %q", cl.name, cs.headers["Authorization"])
					}
					if !withToken && len(cs.headers) != 0 {
						t.Fatalf("%s would send headers %v with no token", cl.name, cs.headers)
					}
					c := dial(t, cs, era, nil)
					useLikeAModel(t, c, era)
					if withToken {
						// The config's header is what lets the client in.
						bare, err := transport.NewStreamableHTTP(cs.url)
						if err != nil {
							t.Fatal(err)
						}
						bc := client.NewClient(bare, client.WithProtocolVersion(era))
						if err := bc.Start(testCtxFor(t)); err == nil {
							init := mcp.InitializeRequest{}
							init.Params.ProtocolVersion = era
							if _, err := bc.Initialize(testCtxFor(t), init); err == nil {
								t.Errorf("a client without the token was let in")
							}
							_ = bc.Close()
						}
					}
					_ = c.Close()
				})
			}
		}
	}
}

// stdioServe starts `mcp-bridge serve args...` on stdio as a client would and connects.
func (u *serveUser) stdioServe(t *testing.T, era string, args ...string) *client.Client {
	t.Helper()
	return dial(t, clientServer{command: u.bin, args: append([]string{"serve", "--cwd", u.project}, args...), env: u.env}, era, nil)
}

// TestServeProjectServersNeedApproval: a project's .zot/mcp.json server is not started by
// serve until `mcp-bridge trust` approves it: its tools are not listed or found, and
// call_tool naming it answers with the approval the user must give. After the approval a
// new serve run lists, finds and calls it.
func TestServeProjectServersNeedApproval(t *testing.T) {
	t.Parallel()
	u := newServeUser(t)
	rec := filepath.Join(t.TempDir(), "proj.jsonl")
	u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
	u.writeConfig(filepath.Join(u.project, ".zot", "mcp.json"), map[string]any{"proj": u.fake("-name", "proj", "-record", rec)})
	notRun := func(what string) {
		t.Helper()
		if _, err := os.Stat(rec); !os.IsNotExist(err) {
			t.Fatalf("%s ran the unapproved project server (its record exists: %v)", what, err)
		}
	}
	callProj := map[string]any{"server": "proj", "tool": "echo", "arguments": map[string]any{"text": "hi"}}
	for _, era := range serveEras {
		c := u.stdioServe(t, era)
		res := callTool(t, c, serve.SearchTool, map[string]any{"query": "echo text back"})
		if text := resultText(res); strings.Contains(text, `server="proj"`) || !strings.Contains(text, `server="files"`) {
			t.Fatalf("%s: a search before approval found:\n%s", era, text)
		}
		res = callTool(t, c, serve.CallTool, callProj)
		if text := resultText(res); !res.IsError || !strings.Contains(text, "not approved") || !strings.Contains(text, "mcp-bridge trust proj") {
			t.Fatalf("%s: call_tool of the unapproved server answered %q (error %v), want the approval to give", era, text, res.IsError)
		}
		_ = c.Close()
		c = u.stdioServe(t, era, "--tools", "all")
		names := listToolNames(t, c)
		if !slices.Contains(names, "mcp__files__echo") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__proj__") }) {
			t.Fatalf("%s: --tools all before approval lists %q", era, names)
		}
		_ = c.Close()
		u.noOrphans("serve runs before approval")
		notRun("serve (" + era + ")")
	}

	r := u.run("", "trust", "proj")
	expectCode(t, r, 0, "trust proj")
	notRun("trust")

	for _, era := range serveEras {
		c := u.stdioServe(t, era, "--tools", "all")
		if names := listToolNames(t, c); !slices.Contains(names, "mcp__proj__echo") {
			t.Fatalf("%s: --tools all after approval lists %q", era, names)
		}
		if res := callTool(t, c, "mcp__proj__echo", map[string]any{"text": "approved"}); res.IsError || resultText(res) != "approved" {
			t.Fatalf("%s: the approved server answered %q (error %v)", era, resultText(res), res.IsError)
		}
		_ = c.Close()
		c = u.stdioServe(t, era)
		if res := callTool(t, c, serve.CallTool, callProj); res.IsError || resultText(res) != "hi" {
			t.Fatalf("%s: call_tool of the approved server answered %q (error %v)", era, resultText(res), res.IsError)
		}
		_ = c.Close()
		u.noOrphans("serve runs after approval")
	}
	if testutil.CountMethod(t, rec, "tools/call") != 4 {
		t.Errorf("the approved server got %d calls, want 4", testutil.CountMethod(t, rec, "tools/call"))
	}
}

// TestServeRefusesBadFlags: each misuse of serve's flags is refused with exit 2 and a
// message saying what to do, before any server is started and before any client config
// is printed.
func TestServeRefusesBadFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := filepath.Join(dir, "open-token")
	private := filepath.Join(dir, "private-token")
	for file, mode := range map[string]os.FileMode{open: 0o644, private: 0o600} {
		if err := os.WriteFile(file, []byte(strings.Repeat("a1b2c3d4", 4)+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"listen beyond loopback without a token", []string{"--listen", "0.0.0.0:0"}, []string{"--listen needs --token-file"}},
		{"a token file others can read", []string{"--http", "--token-file", open}, []string{open, "chmod 600"}},
		{"a token file others can read, listening beyond loopback", []string{"--listen", "0.0.0.0:0", "--token-file", open}, []string{"chmod 600"}},
		{"a token file without HTTP", []string{"--token-file", private}, []string{"--token-file", "--http"}},
		{"unknown tool set", []string{"--tools", "bogus"}, []string{`--tools "bogus"`, `"search"`, `"all"`}},
		{"unknown tool set over HTTP", []string{"--http", "--tools", "bogus"}, []string{`--tools "bogus"`}},
		{"unknown prefix", []string{"--prefix", "bogus"}, []string{`--prefix "bogus"`, "zot or none"}},
		{"the servers' own names without every tool", []string{"--prefix", "none"}, []string{"--prefix none needs --tools all"}},
		{"unknown client", []string{"--print-config", "bogus"}, []string{`unknown client "bogus"`, "claude"}},
		{"unknown client over HTTP", []string{"--http", "--print-config", "bogus"}, []string{`unknown client "bogus"`}},
		{"a config for a bad tool set", []string{"--tools", "bogus", "--print-config", "claude"}, []string{`--tools "bogus"`}},
		{"a stray argument", []string{"extra"}, []string{"usage: mcp-bridge serve"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := newServeUser(t)
			rec := filepath.Join(t.TempDir(), "files.jsonl")
			u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files", "-record", rec)})
			r := u.run("", append([]string{"serve"}, tt.args...)...)
			expectCode(t, r, 2, "serve "+strings.Join(tt.args, " "))
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if r.stdout != "" {
				t.Errorf("a refused serve printed on stdout:\n%s", r.stdout)
			}
			if _, err := os.Stat(rec); !os.IsNotExist(err) {
				t.Errorf("a refused serve started a server (its record exists: %v)", err)
			}
			u.noOrphans("a refused serve run")
		})
	}
}

// TestServeStdioJunkLines: lines on serve's stdin that are not JSON get a JSON-RPC parse
// error each, and serve goes on answering the requests after them, in both eras.
func TestServeStdioJunkLines(t *testing.T) {
	t.Parallel()
	u := newServeUser(t)
	u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
	ctx := testCtxFor(t)
	cmd := exec.CommandContext(ctx, u.bin, "serve", "--cwd", u.project)
	cmd.Env = u.env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	// send writes one line and reads the one line it is answered with.
	send := func(line string) reply {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("write %q: %v\nstderr:\n%s", line, err, stderr.String())
		}
		got, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %q: %v\nstderr:\n%s", line, err, stderr.String())
		}
		var r reply
		if err := json.Unmarshal([]byte(got), &r); err != nil {
			t.Fatalf("the answer to %q is not JSON: %q", line, got)
		}
		return r
	}
	parseError := func(line string) {
		t.Helper()
		if r := send(line); r.Error == nil || r.Error.Code != mcp.PARSE_ERROR || string(r.ID) != "null" {
			t.Fatalf("%q got %+v, want a parse error (id null)", line, r)
		}
	}
	answered := func(line, id, want string) {
		t.Helper()
		r := send(line)
		if r.Error != nil || string(r.ID) != id || !strings.Contains(string(r.Result), want) {
			t.Fatalf("%q got id %s error %+v result %s, want a result with %s", line, r.ID, r.Error, r.Result, want)
		}
	}
	parseError("this is not JSON")
	answered(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"junk-test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, "1", `"supportedVersions"`)
	parseError(`{"jsonrpc":"2.0","id":2,"method":`)
	parseError("\x00\x01 binary")
	answered(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"junk-test","version":"1"}}}`, "3", `"protocolVersion":"2025-11-25"`)
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	parseError("}{")
	answered(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, "4", `"search_tools"`)
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve ended with %v when its stdin closed\nstderr:\n%s", err, stderr.String())
	}
	u.noOrphans("serve's stdin closed")
}

// TestServeClientsStdioZotHome: a user whose zot home is not the default one (ZOT_HOME,
// or XDG_STATE_HOME) gets a stdio config that serves that home even from a client that
// passes serve a minimal environment (Codex passes neither variable).
func TestServeClientsStdioZotHome(t *testing.T) {
	t.Parallel()
	for _, cl := range serveClients {
		for _, variable := range []string{"ZOT_HOME", "XDG_STATE_HOME"} {
			t.Run(cl.name+"/"+variable, func(t *testing.T) {
				t.Parallel()
				u := newServeUser(t)
				dir := t.TempDir()
				u.env = append(u.env, variable+"="+dir)
				zotHome := dir
				if variable == "XDG_STATE_HOME" {
					zotHome = filepath.Join(dir, "zot")
				}
				u.writeConfig(filepath.Join(zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
				r := u.run("", "serve", "--print-config", cl.name)
				expectCode(t, r, 0, "serve --print-config "+cl.name)
				cs := cl.read(t, r.stdout, u.env)
				useLikeAModel(t, dial(t, cs, mcp.LATEST_LEGACY_PROTOCOL_VERSION, nil), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			})
		}
	}
}

// TestServeListenHosts: a --listen server accepts the Host names --host gives (a load
// balancer's or a Service's name) and still refuses any other with 421; --host without
// --listen, or without a port, is refused before anything starts.
func TestServeListenHosts(t *testing.T) {
	t.Parallel()
	u := newServeUser(t)
	u.writeConfig(filepath.Join(u.zotHome, "mcp.json"), map[string]any{"files": u.fake("-name", "files")})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_ = ln.Close()
	token := strings.Repeat("9f8e7d6c", 4)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	u.startHTTP("--listen", "127.0.0.1:"+port, "--token-file", file, "--host", "bridge.example:"+port)
	for _, tc := range []struct {
		host string
		want int
	}{
		{host: "bridge.example:" + port, want: http.StatusOK},
		{host: "127.0.0.1:" + port, want: http.StatusOK},
		{host: "other.example:" + port, want: http.StatusMisdirectedRequest},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, err := http.NewRequestWithContext(testCtxFor(t), http.MethodPost, "http://127.0.0.1:"+port+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tc.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s: status %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
	for _, args := range [][]string{{"--host", "bridge.example:80"}, {"--listen", "127.0.0.1:0", "--token-file", file, "--host", "bridge.example"}} {
		r := u.run("", append([]string{"serve"}, args...)...)
		expectCode(t, r, 2, "serve "+strings.Join(args, " "))
		if !strings.Contains(r.stderr, "--host") && !strings.Contains(r.stderr, "NAME:PORT") {
			t.Errorf("serve %v: stderr does not say what is wrong with --host:\n%s", args, r.stderr)
		}
	}
}
