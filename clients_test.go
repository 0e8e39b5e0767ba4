package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// clientEnv loads one client-format fixture from testdata/clients as the GLOBAL config
// file and fills the cache with `mcp-bridge refresh`. These tests are about the format,
// and servers of the global file are the user's own, so they keep running unchanged
// once project servers need approval. vars are extra environment entries (KEY=VALUE).
func clientEnv(t *testing.T, fixture string, vars ...string) *env {
	t.Helper()
	npm := testutil.NPMBin(t)
	e := newEnv(t)
	data, err := os.ReadFile(filepath.Join("testdata", "clients", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.project, "hello.txt"), []byte("hello from the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, append([]string{"MCP_NPM_BIN=" + npm}, vars...)...)
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh of %s failed (%d): %s", fixture, code, out)
	}
	return e
}

// everythingPort starts the everything server (streamable HTTP, loopback) and returns the
// EVERYTHING_PORT entry the fixtures read.
func everythingPort(t *testing.T) string {
	base := testutil.StartEverything(t, "streamableHttp")
	return "EVERYTHING_PORT=" + base[strings.LastIndexByte(base, ':')+1:]
}

// session starts the bridge as zot does; caps nil is an old host (proxy mode).
func (e *env) session(ctx context.Context, caps []string) (*exttest.Host, []regTool) {
	e.t.Helper()
	h := e.start()
	h.ExpectHello(ctx)
	eager, deferred := tools(e.t, h.Handshake(ctx, newAck(e.project, caps)))
	e.t.Cleanup(func() { _ = h.Shutdown(ctx); _ = h.Wait(ctx) })
	return h, append(eager, deferred...)
}

func callText(t *testing.T, ctx context.Context, h *exttest.Host, tool string, args map[string]any, want string) string {
	t.Helper()
	res, err := h.CallTool(ctx, "c-"+tool, tool, args)
	if err != nil || res.IsError || !strings.Contains(res.Text(), want) {
		t.Fatalf("%s: err=%v is_error=%v text=%q, want %q", tool, err, res.IsError, res.Text(), want)
	}
	return res.Text()
}

func realPath(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Claude Code's .mcp.json: "type": "stdio" and ${VAR:-default}.
func TestClientFormatClaudeCode(t *testing.T) {
	t.Parallel()
	e := clientEnv(t, "claude-code.mcp.json")
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	res, err := h.CallTool(ctx, "s", "mcp__search_tools", map[string]any{"query": "read the contents of a text file"})
	if err != nil || !contains(res.ActivateTools, "mcp__fs__read_text_file") {
		t.Fatalf("search: %v %v\n%s", err, res.ActivateTools, res.Text())
	}
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": "hello.txt"}, "hello from the project")
}

// Cursor: ${env:NAME} in the command, ${workspaceFolder} as the server's root.
func TestClientFormatCursor(t *testing.T) {
	t.Parallel()
	e := clientEnv(t, "cursor.mcp.json")
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	callText(t, ctx, h, "mcp__fs__list_allowed_directories", nil, realPath(t, e.project))
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(e.project, "hello.txt")}, "hello from the project")
}

// VS Code: the "servers" key, "inputs" and ${input:ID} read from MCP_INPUT_<ID>, never
// prompted; ${workspaceFolder}.
func TestClientFormatVSCode(t *testing.T) {
	t.Parallel()
	extra := t.TempDir()
	if err := os.WriteFile(filepath.Join(extra, "extra.txt"), []byte("from the input's directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := clientEnv(t, "vscode.mcp.json", "MCP_INPUT_EXTRA_ROOT="+extra)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	dirs := callText(t, ctx, h, "mcp__fs__list_allowed_directories", nil, realPath(t, e.project))
	if !strings.Contains(dirs, realPath(t, extra)) {
		t.Fatalf("${input:extra-root} did not reach the server: %q", dirs)
	}
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(extra, "extra.txt")}, "from the input's directory")

	// Without the variable the server is not started, and the error says what to set.
	e.vars = without(e.vars, "MCP_INPUT_EXTRA_ROOT")
	out, code := e.run("doctor")
	if code == 0 || !strings.Contains(out, `args[1]: input "extra-root" ("A second directory`) || !strings.Contains(out, "has no value: set the environment variable MCP_INPUT_EXTRA_ROOT") {
		t.Fatalf("doctor without the input (%d):\n%s", code, out)
	}
}

// without drops the variable name from env.
func without(env []string, name string) []string {
	var out []string
	for _, v := range env {
		if !strings.HasPrefix(v, name+"=") {
			out = append(out, v)
		}
	}
	return out
}

// Gemini/Qwen: httpUrl is streamable HTTP, timeout in ms, includeTools and excludeTools.
// An excluded tool is not registered, not found by search, and refused by mcp__call_tool.
func TestClientFormatGemini(t *testing.T) {
	t.Parallel()
	e := clientEnv(t, "gemini.settings.json", everythingPort(t))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()

	h, regs := e.session(ctx, []string{"call_tool"})
	registered := names(regs)
	for _, hidden := range []string{"mcp__fs__write_file", "mcp__fs__edit_file", "mcp__fs__move_file", "mcp__everything__trigger_long_running_operation", "mcp__everything__toggle_simulated_logging"} {
		if contains(registered, hidden) {
			t.Errorf("%s is registered although the config filters it out", hidden)
		}
	}
	for _, shown := range []string{"mcp__fs__read_text_file", "mcp__everything__echo", "mcp__everything__get_sum"} {
		if !contains(registered, shown) {
			t.Errorf("%s is not registered: %v", shown, registered)
		}
	}
	res, err := h.CallTool(ctx, "s", "mcp__search_tools", map[string]any{"query": "write a new file, overwrite file contents", "limit": 20})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, res.Text())
	}
	if contains(res.ActivateTools, "mcp__fs__write_file") || strings.Contains(res.Text(), "write_file") {
		t.Fatalf("search found the excluded write_file: %v\n%s", res.ActivateTools, res.Text())
	}
	callText(t, ctx, h, "mcp__everything__echo", map[string]any{"message": "from gemini's httpUrl"}, "Echo: from gemini's httpUrl")
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": "hello.txt"}, "hello from the project")
	st, err := h.Command(ctx, "st", "mcp", "everything")
	if err != nil || !strings.Contains(st.Display, "transport:  streamable-http\n") ||
		!strings.Contains(st.Display, "warning:    trust: not used") || !strings.Contains(st.Display, "includeTools: echo, get-*") {
		t.Fatalf("/mcp everything: %v\n%s", err, st.Display)
	}

	// An old host (proxy mode): mcp__call_tool refuses the excluded tool and says why.
	p, _ := e.session(ctx, nil)
	r, err := p.CallTool(ctx, "w", "mcp__call_tool", map[string]any{"server": "fs", "tool": "write_file",
		"arguments": map[string]any{"path": "pwned.txt", "content": "x"}})
	if err != nil || !r.IsError || !strings.Contains(r.Text(), `tool "write_file" of server "fs" is hidden`) ||
		!strings.Contains(r.Text(), `"excludeTools" pattern "write_file"`) {
		t.Fatalf("mcp__call_tool write_file: err=%v is_error=%v %q", err, r.IsError, r.Text())
	}
	if _, err := os.Stat(filepath.Join(e.project, "pwned.txt")); err == nil {
		t.Fatal("the excluded write_file ran")
	}
	callText(t, ctx, p, "mcp__call_tool", map[string]any{"server": "fs", "tool": "read_text_file", "arguments": map[string]any{"path": "hello.txt"}}, "hello from the project")
}

// Windsurf: serverUrl.
func TestClientFormatWindsurf(t *testing.T) {
	t.Parallel()
	e := clientEnv(t, "windsurf.mcp_config.json", everythingPort(t))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	callText(t, ctx, h, "mcp__everything__echo", map[string]any{"message": "from serverUrl"}, "Echo: from serverUrl")
}

// Cline: type "streamableHttp", transportType, and autoApprove (warned about, not used).
func TestClientFormatCline(t *testing.T) {
	t.Parallel()
	e := clientEnv(t, "cline_mcp_settings.json", everythingPort(t))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	callText(t, ctx, h, "mcp__everything__echo", map[string]any{"message": "from cline"}, "Echo: from cline")
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": "hello.txt"}, "hello from the project")
	st, err := h.Command(ctx, "st", "mcp", "everything")
	// The real binary wraps its answer to the screen's width: compare the words.
	if d := exttest.Unwrap(st.Display); err != nil || !strings.Contains(d, "warning: autoApprove: not used (Cline's per-tool auto-approval)") ||
		!strings.Contains(d, "warning: timeout: read as 60 seconds (Cline's unit)") {
		t.Fatalf("/mcp everything: %v\n%s", err, st.Display)
	}
}

// The project files of other clients are read too, each server naming its file.
// TRUST: once project servers need approval, approve them here before the call
// (approveProject is the one place to change).
func TestProjectFileOfOtherClient(t *testing.T) {
	t.Parallel()
	npm := testutil.NPMBin(t)
	e := newEnv(t)
	e.vars = append(e.vars, "MCP_NPM_BIN="+npm)
	data, err := os.ReadFile(filepath.Join("testdata", "clients", "claude-code.mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.project, ".mcp.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.project, "hello.txt"), []byte("hello from the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	approveProject(t, e)
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh (%d): %s", code, out)
	}
	out, code := e.run("doctor")
	if code != 0 || !strings.Contains(out, "ok: ") || !strings.Contains(out, "["+filepath.Join(e.project, ".mcp.json")+"]") {
		t.Fatalf("doctor (%d):\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h, _ := e.session(ctx, []string{"call_tool"})
	st, err := h.Command(ctx, "st", "mcp", "")
	if err != nil || !strings.Contains(exttest.Unwrap(st.Display), "(project .mcp.json)") {
		t.Fatalf("/mcp does not name the file: %v\n%s", err, st.Display)
	}
	callText(t, ctx, h, "mcp__fs__read_text_file", map[string]any{"path": "hello.txt"}, "hello from the project")
}

// approveProject approves every project server of e (`mcp-bridge trust --all`).
func approveProject(t *testing.T, e *env) {
	t.Helper()
	if out, code := e.run("trust", "--all", "--cwd", e.project); code != 0 {
		t.Fatalf("trust --all (%d): %s", code, out)
	}
}
