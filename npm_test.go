package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// fsEnv configures the real npm @modelcontextprotocol/server-filesystem, rooted at the
// project directory, and fills the cache through `mcp-bridge refresh`.
func fsEnv(t *testing.T, top map[string]any) *env {
	bin := testutil.NPMBin(t)
	e := newEnv(t)
	e.write(map[string]any{"fs": map[string]any{"command": filepath.Join(bin, "mcp-server-filesystem"), "args": []string{"."}, "connectTimeout": 60}}, top)
	if err := os.WriteFile(filepath.Join(e.project, "hello.txt"), []byte("hello from the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh of the npm filesystem server failed (%d): %s", code, out)
	}
	return e
}

// TestNPMFilesystemDeferred bridges the real filesystem server on a NEW host: search,
// activation, call, result.
func TestNPMFilesystemDeferred(t *testing.T) {
	t.Parallel()
	e := fsEnv(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	h.ExpectHello(ctx)
	eager, deferred := tools(t, h.Handshake(ctx, newAck(e.project, []string{"call_tool"})))
	if len(eager) != 1 || len(deferred) < 10 {
		t.Fatalf("eager %v, %d deferred", names(eager), len(deferred))
	}
	res, err := h.CallTool(ctx, "s1", "mcp__search_tools", map[string]any{"query": "read the contents of a text file"})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(res.ActivateTools, "mcp__fs__read_text_file") {
		t.Fatalf("search did not activate read_text_file: %v\n%s", res.ActivateTools, res.Text())
	}
	res, err = h.CallTool(ctx, "c1", "mcp__fs__read_text_file", map[string]any{"path": "hello.txt"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "hello from the project") {
		t.Fatalf("read_text_file: err=%v is_error=%v text=%q", err, res.IsError, res.Text())
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestNPMFilesystemProxy bridges the same server on a host without capabilities: two
// tools only, search answers carry schemas, mcp__call_tool reaches the server, and bad
// server/tool/arguments are refused before any server starts.
func TestNPMFilesystemProxy(t *testing.T) {
	t.Parallel()
	e := fsEnv(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	h.ExpectHello(ctx)
	eager, deferred := tools(t, h.Handshake(ctx, newAck(e.project, nil)))
	if got := strings.Join(names(eager), ","); got != "mcp__call_tool,mcp__search_tools" || len(deferred) != 0 {
		t.Fatalf("legacy host got eager %s and %d deferred", got, len(deferred))
	}
	res, err := h.CallTool(ctx, "s1", "mcp__search_tools", map[string]any{"query": "read a text file"})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, res.Text())
	}
	if len(res.ActivateTools) != 0 {
		t.Fatalf("proxy mode must not activate tools the host cannot reveal: %v", res.ActivateTools)
	}
	for _, want := range []string{`server="fs"`, `tool="read_text_file"`, "input schema:", `"path"`, "example: mcp__call_tool"} {
		if !strings.Contains(res.Text(), want) {
			t.Fatalf("proxy search answer lacks %q:\n%s", want, res.Text())
		}
	}
	bad := []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad server", map[string]any{"server": "fss", "tool": "read_text_file", "arguments": map[string]any{"path": "hello.txt"}}, `unknown MCP server "fss". Did you mean "fs"`},
		{"bad tool", map[string]any{"server": "fs", "tool": "read_txt_file", "arguments": map[string]any{"path": "hello.txt"}}, `has no tool "read_txt_file". Did you mean "read_text_file"`},
		{"bad arguments", map[string]any{"server": "fs", "tool": "read_text_file", "arguments": map[string]any{"pth": "hello.txt"}}, "missing property 'path'"},
	}
	for i, b := range bad {
		r, err := h.CallTool(ctx, "b"+string(rune('0'+i)), "mcp__call_tool", b.args)
		if err != nil || !r.IsError || !strings.Contains(r.Text(), b.want) {
			t.Fatalf("%s: err=%v is_error=%v text=%q, want %q", b.name, err, r.IsError, r.Text(), b.want)
		}
	}
	st, err := h.Command(ctx, "st", "mcp", "")
	if err != nil || !strings.Contains(st.Display, "asleep") {
		t.Fatalf("a refused call reached the server (status: %q, err %v)", st.Display, err)
	}
	args, _ := json.Marshal(map[string]any{"server": "fs", "tool": "read_text_file", "arguments": map[string]any{"path": "hello.txt"}})
	res, err = h.CallTool(ctx, "c1", "mcp__call_tool", json.RawMessage(args))
	if err != nil || res.IsError || !strings.Contains(res.Text(), "hello from the project") {
		t.Fatalf("call through mcp__call_tool: err=%v is_error=%v text=%q", err, res.IsError, res.Text())
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = h.Wait(ctx)
}
