package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// The CLI's call takes the names users see, and lists a never-listed server first.
func TestCallByNameForms(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"my-srv": e.server(), "listed": e.server()}, nil)
	e.seedCache(map[string]int{"listed": 2})
	b := e.bridgeOn(extension.GenNew, commands.SurfaceCLI)

	// Not listed yet: the registered-name form is split by the sanitised server name.
	if s, tool, ok := b.SplitToolName("mcp__my_srv__echo"); !ok || s != "my-srv" || tool != "echo" {
		t.Fatalf("SplitToolName = %q %q %v", s, tool, ok)
	}
	if _, _, ok := b.SplitToolName("mcp__nosuch__echo"); ok {
		t.Fatal("SplitToolName matched an unknown server")
	}
	args := json.RawMessage(`{"text":"hi"}`)
	for _, tool := range []string{"echo", "mcp__my_srv__echo"} {
		if got := textOf(t, b.CallByName(ctxGuard(t), "my-srv", tool, args)); got != "hi" {
			t.Fatalf("call my-srv %s = %q", tool, got)
		}
	}
	if n := len(b.Tools("my-srv")); n == 0 {
		t.Fatal("the call did not put my-srv's tools in the catalog")
	}

	// A server with a fresh cache entry is trusted: '-' for '_' finds the tool, and a typo
	// gets "did you mean" without starting the server.
	// (The seeded tool does not exist on the server: reaching the server is the point.)
	if got := textOf(t, b.CallByName(ctxGuard(t), "listed", "cached-1", nil)); strings.Contains(got, "has no tool") {
		t.Fatalf("call listed cached-1 was not resolved: %q", got)
	}
	wantState(t, e.srv(b, "listed"), lifecycle.StateReady, "cached-1 resolved to cached_1 and reached the server")
	e.srv(b, "listed").Stop(ctxGuard(t))
	r := b.CallByName(ctxGuard(t), "listed", "cachd_1", nil)
	if !r.IsError || !strings.Contains(textOf(t, r), `Did you mean "cached_1"`) {
		t.Fatalf("typo: %q", textOf(t, r))
	}
	wantState(t, e.srv(b, "listed"), lifecycle.StateAsleep, "a typo must not start the server")
}
