package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

func TestMain(m *testing.M) {
	testutil.RaiseParallel(testutil.WaitingParallelism)
	code := m.Run()
	testutil.RemoveBuilt()
	os.Exit(code)
}

// guard is a hang guard for waits, never a measured bound.
const guard = 60 * time.Second

// env is one isolated zot home with a config and a ready cache.
type env struct {
	t       *testing.T
	bin     string
	home    string
	project string
	marker  string
	vars    []string
}

// newEnv writes servers into $ZOT_HOME/mcp.json (a JSONC file with a comment), and fills
// the tool cache by running `mcp-bridge refresh` — the same code path a user runs.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, bin: testutil.BuildBinary(t, "github.com/zot-mcp/mcp-bridge"), home: t.TempDir(), project: t.TempDir(),
		marker: testutil.NewMarker(t)}
	e.vars = append(os.Environ(), "ZOT_HOME="+e.home, "MCP_BRIDGE_LOG=debug")
	t.Cleanup(func() { testutil.KillProcsWithMarker(e.marker) })
	return e
}

// write writes the global mcp.json.
func (e *env) write(servers map[string]any, extraTop map[string]any) {
	t := e.t
	top := map[string]any{"mcpServers": servers}
	for k, v := range extraTop {
		top[k] = v
	}
	raw, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), append([]byte("// written by the test\n"), raw...), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (e *env) fake(extra ...string) map[string]any {
	return map[string]any{"command": testutil.FakeServer(e.t), "args": append([]string{"-marker", e.marker, "-max-lifetime", "5m"}, extra...)}
}

func (e *env) run(args ...string) (string, int) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = e.vars
	cmd.Dir = e.project
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return string(out), code
}

func (e *env) start() *exttest.Host {
	cmd := exec.Command(e.bin)
	cmd.Env = e.vars
	cmd.Dir = filepath.Dir(e.bin) // the host starts extensions in their own directory
	return exttest.StartProcess(e.t, cmd)
}

func newAck(project string, caps []string) exttest.Ack {
	return exttest.Ack{Cwd: project, Capabilities: caps, ZotVersion: "0.0.0", Provider: "test", Model: "test"}
}

type regTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Deferred    bool            `json:"deferred"`
}

func tools(t *testing.T, frames []exttest.Frame) (eager, deferred []regTool) {
	for _, f := range frames {
		if f.Type != "register_tool" {
			continue
		}
		var r regTool
		if err := f.Decode(&r); err != nil {
			t.Fatal(err)
		}
		var schema map[string]any
		if err := json.Unmarshal(r.Schema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("tool %s: schema is not an object schema: %s", r.Name, r.Schema)
		}
		if len(r.Name) > 64 {
			t.Errorf("tool name over 64 characters: %s", r.Name)
		}
		if r.Deferred {
			deferred = append(deferred, r)
		} else {
			eager = append(eager, r)
		}
	}
	return eager, deferred
}

func names(ts []regTool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

func TestExtensionEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.write(map[string]any{"alpha": e.fake("-name", "alpha"), "beta": e.fake("-name", "beta", "-tools", "5")}, nil)
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh failed (%d): %s", code, out)
	}
	if left := testutil.WaitNoProcs(context.Background(), e.marker); len(left) > 0 {
		t.Fatalf("refresh left server processes behind: %v", left)
	}

	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	hello := h.ExpectHello(ctx)
	if !contains(hello.Capabilities, "tool_cancel") {
		t.Errorf("hello does not advertise tool_cancel: %v", hello.Capabilities)
	}
	frames := h.Handshake(ctx, newAck(e.project, []string{"call_tool"}))
	eager, deferred := tools(t, frames)
	if got := names(eager); len(got) != 1 || got[0] != "mcp__search_tools" {
		t.Fatalf("eager tools = %v, want only mcp__search_tools", got)
	}
	if len(deferred) != 2*13+5+2 { // the tools, mcp__read_resource and mcp__task_result
		t.Fatalf("deferred tools = %d, want %d: %v", len(deferred), 2*13+5+2, names(deferred))
	}
	if testutil.ProcsWithMarker(e.marker) != nil {
		t.Fatal("a server was spawned at startup although its cache entry is fresh")
	}

	res, err := h.CallTool(ctx, "1", "mcp__search_tools", map[string]any{"query": "add two numbers in beta"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.ActivateTools) == 0 || res.ActivateTools[0] != "mcp__beta__add" {
		t.Fatalf("search: is_error=%v activate=%v text=%s", res.IsError, res.ActivateTools, res.Text())
	}
	for _, n := range res.ActivateTools {
		if !strings.Contains(res.Text(), n) {
			t.Errorf("activated %s is not listed in the answer", n)
		}
	}

	res, err = h.CallTool(ctx, "2", "mcp__beta__add", map[string]any{"a": 2, "b": 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Text() != "42" || string(res.StructuredContent) != `{"sum":42}` {
		t.Fatalf("call: is_error=%v text=%q structured=%s", res.IsError, res.Text(), res.StructuredContent)
	}
	// A tool the model never searched for is called the same way.
	res, err = h.CallTool(ctx, "3", "mcp__alpha__echo", map[string]any{"text": "hi"})
	if err != nil || res.IsError || res.Text() != "hi" {
		t.Fatalf("unsearched call: err=%v is_error=%v text=%q", err, res.IsError, res.Text())
	}
	res, err = h.CallTool(ctx, "4", "mcp__alpha__cwd", nil)
	if err != nil || res.Text() != e.project {
		t.Fatalf("server cwd = %q, want the project dir %q (err %v)", res.Text(), e.project, err)
	}
	// Each running server is two processes: its supervisor and the server itself.
	if n := len(testutil.ProcsWithMarker(e.marker)); n != 4 {
		t.Fatalf("want the 2 called servers running (with supervisors: 4 processes), found %d", n)
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatalf("bridge exit: %v", err)
	}
	if left := testutil.ProcsWithMarker(e.marker); len(left) > 0 {
		t.Fatalf("processes left after shutdown: %v", left)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestNoOrphans ends the bridge every way it can end while servers (one with a grandchild
// that ignores stdin EOF and SIGTERM, like npx's node) are running, and checks the process
// table for any process of the server trees.
func TestNoOrphans(t *testing.T) {
	ends := []struct {
		name string
		end  func(h *exttest.Host, cmd *exec.Cmd, ctx context.Context) error
	}{
		{"shutdown", func(h *exttest.Host, _ *exec.Cmd, ctx context.Context) error { return h.Shutdown(ctx) }},
		{"stdin EOF", func(h *exttest.Host, _ *exec.Cmd, _ context.Context) error { return h.CloseStdin() }},
		{"SIGTERM", func(_ *exttest.Host, cmd *exec.Cmd, _ context.Context) error {
			return cmd.Process.Signal(syscall.SIGTERM)
		}},
		{"SIGINT", func(_ *exttest.Host, cmd *exec.Cmd, _ context.Context) error {
			return cmd.Process.Signal(syscall.SIGINT)
		}},
		{"SIGKILL", func(_ *exttest.Host, cmd *exec.Cmd, _ context.Context) error { return cmd.Process.Kill() }},
	}
	// The test stays serial, apart from the package's other tests, as every process-table
	// check does; its ends run side by side, as each finds only its own marked processes.
	for _, tc := range ends {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.write(map[string]any{
				"plain":    e.fake(),
				"stubborn": e.fake("-grandchild", "-ignore-stdin-close", "-ignore-sigterm"),
			}, nil)
			if out, code := e.run("refresh"); code != 0 {
				t.Fatalf("refresh: %s", out)
			}
			testutil.WaitNoProcs(context.Background(), e.marker)
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			cmd := exec.Command(e.bin)
			cmd.Env = e.vars
			h := exttest.StartProcess(t, cmd)
			h.ExpectHello(ctx)
			h.Handshake(ctx, newAck(e.project, []string{"call_tool"}))
			for i, tool := range []string{"mcp__plain__pid", "mcp__stubborn__pid"} {
				if r, err := h.CallTool(ctx, fmt.Sprint(i), tool, nil); err != nil || r.IsError {
					t.Fatalf("%s: %v %s", tool, err, r.Text())
				}
			}
			if n := len(testutil.ProcsWithMarker(e.marker)); n < 3 {
				t.Fatalf("want >= 3 server processes (plain, stubborn, grandchild), found %d", n)
			}
			if err := tc.end(h, cmd, ctx); err != nil {
				t.Fatal(err)
			}
			_ = h.Wait(ctx)
			// The stop graces sum to under 2 s; the bound is for a machine so loaded that
			// the supervisor and the servers wait long for a CPU (a failure bound, not a
			// timing assertion).
			wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer wcancel()
			if left := testutil.WaitNoProcs(wctx, e.marker); len(left) > 0 {
				t.Fatalf("server processes outlived the bridge: %v", left)
			}
		})
	}
}

// TestExposureModes checks host detection and the toolExposure override.
func TestExposureModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		exposure  string
		caps      []string
		wantEager []string // nil: every tool eager
		deferred  bool
	}{
		{"new host auto", "", []string{"call_tool"}, []string{"mcp__search_tools"}, true},
		{"legacy host auto", "", nil, []string{"mcp__call_tool", "mcp__search_tools"}, false},
		{"legacy host, deferred forced", "deferred", nil, []string{"mcp__search_tools"}, true},
		{"new host, proxy forced", "proxy", []string{"call_tool"}, []string{"mcp__call_tool", "mcp__search_tools"}, false},
		{"direct", "direct", nil, nil, false},
		{"auto spelled out", "auto", nil, []string{"mcp__call_tool", "mcp__search_tools"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			top := map[string]any{}
			if tc.exposure != "" {
				top["toolExposure"] = tc.exposure
			}
			e.write(map[string]any{"s": e.fake()}, top)
			if out, code := e.run("refresh"); code != 0 {
				t.Fatalf("refresh: %s", out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			h := e.start()
			h.ExpectHello(ctx)
			eager, deferred := tools(t, h.Handshake(ctx, newAck(e.project, tc.caps)))
			if tc.wantEager == nil {
				if len(eager) != 13+3 || len(deferred) != 0 { // the tools, search, read_resource and task_result
					t.Fatalf("direct: eager %d deferred %d", len(eager), len(deferred))
				}
				return
			}
			if got := names(eager); strings.Join(got, ",") != strings.Join(tc.wantEager, ",") {
				t.Fatalf("eager = %v, want %v", got, tc.wantEager)
			}
			if tc.deferred != (len(deferred) == 13+2) || (!tc.deferred && len(deferred) != 0) { // +2: mcp__read_resource, mcp__task_result
				t.Fatalf("deferred tools = %d (want deferred: %v)", len(deferred), tc.deferred)
			}
			r, err := h.Command(ctx, "c1", "mcp", "")
			if err != nil || !strings.Contains(r.Display, "mode: ") {
				t.Fatalf("/mcp status does not show the mode: %v %q", err, r.Display)
			}
		})
	}
}

// TestHostCancelReachesServer: the host's tool_cancel cancels the forwarded call (the server
// sees notifications/cancelled for that request) and no result frame is sent.
func TestHostCancelReachesServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	e.write(map[string]any{"s": e.fake("-record", rec)}, nil)
	if out, code := e.run("refresh"); code != 0 {
		t.Fatalf("refresh: %s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	h.ExpectHello(ctx)
	h.Handshake(ctx, newAck(e.project, []string{"call_tool"}))
	if err := h.SendToolCall("slow-1", "mcp__s__slow", map[string]any{"ms": 60000}); err != nil {
		t.Fatal(err)
	}
	call := testutil.WaitRecord(t, rec, guard, func(l testutil.RecordLine) bool { return l.Method == "tools/call" && l.Tool == "slow" })
	if err := h.Cancel("slow-1"); err != nil {
		t.Fatal(err)
	}
	// Only the call's own cancel counts: on a loaded machine the era probe may be given
	// up (and cancelled) first.
	testutil.WaitRecord(t, rec, guard, func(l testutil.RecordLine) bool {
		return l.Method == "notifications/cancelled" && l.RequestID() == call.IDString()
	})
	// Later frames still flow, and no result for the cancelled call ever arrives.
	if r, err := h.CallTool(ctx, "after", "mcp__s__echo", map[string]any{"text": "still here"}); err != nil || r.Text() != "still here" {
		t.Fatalf("after cancel: %v %q", err, r.Text())
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_ = h.Wait(ctx)
	for _, f := range h.Pending() {
		if f.Type == "tool_result" && f.ID == "slow-1" {
			t.Fatalf("result sent for a cancelled call: %s", f.Raw)
		}
	}
}

// TestNoServersConfigured: the search tool and /mcp are still there and say how to add one.
func TestNoServersConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	h := e.start()
	h.ExpectHello(ctx)
	frames := h.Handshake(ctx, newAck(e.project, []string{"call_tool"}))
	eager, deferred := tools(t, frames)
	if got := names(eager); len(got) != 1 || got[0] != "mcp__search_tools" || len(deferred) != 0 {
		t.Fatalf("eager %v deferred %d", got, len(deferred))
	}
	hasCommand := false
	for _, f := range frames {
		if f.Type == "register_command" && strings.Contains(string(f.Raw), `"name":"mcp"`) {
			hasCommand = true
		}
	}
	if !hasCommand {
		t.Fatal("/mcp not registered")
	}
	r, err := h.CallTool(ctx, "1", "mcp__search_tools", map[string]any{"query": "github issues"})
	if err != nil || !strings.Contains(r.Text(), "/mcp setup add") {
		t.Fatalf("%v %q", err, r.Text())
	}
	st, err := h.Command(ctx, "c", "mcp", "")
	if err != nil || !strings.Contains(st.Display, "none configured") {
		t.Fatalf("%v %q", err, st.Display)
	}
	if err := h.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}
