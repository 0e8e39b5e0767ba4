package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// interactiveSession runs a bridge with the given call budget behind a host that
// announces caps (nil: a host without capabilities), the fake server "fake" cached, its
// "slow" tool listed in interactiveTools and a requestTimeout of 1 s.
func interactiveSession(t *testing.T, caps []string, budget time.Duration) (*exttest.Host, []exttest.Frame, *fakeClock) {
	t.Helper()
	e := newTestEnv(t)
	e.write(map[string]any{"fake": mergeMap(e.server(), map[string]any{"interactiveTools": []string{"slo*"}, "requestTimeout": 1})}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"fake"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	pre.Close(ctxGuard(t))
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(t)), CallBudget: budget,
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	h := serveHost(t, b)
	return h, h.Handshake(ctxGuard(t), exttest.Ack{Cwd: e.project, Capabilities: caps}), e.clock
}

// TestInteractiveToolsOnHostWithCapabilities: a tool in interactiveTools is registered
// interactive (others are not), and a call of it outlives both the call budget and the
// server's requestTimeout, which bound every other call.
func TestInteractiveToolsOnHostWithCapabilities(t *testing.T) {
	t.Parallel()
	h, regs, _ := interactiveSession(t, []string{"call_tool"}, time.Second)
	seen := map[string]bool{}
	for _, f := range regs {
		if f.Type != "register_tool" {
			continue
		}
		var m struct {
			Name        string `json:"name"`
			Interactive bool   `json:"interactive"`
		}
		if err := f.Decode(&m); err != nil {
			t.Fatal(err)
		}
		seen[m.Name] = m.Interactive
	}
	if interactive, ok := seen["mcp__fake__slow"]; !ok || !interactive {
		t.Fatalf("mcp__fake__slow not registered interactive: %v", seen)
	}
	if seen["mcp__fake__echo"] {
		t.Fatal("mcp__fake__echo is not in interactiveTools but was registered interactive")
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__fake__slow", map[string]any{"ms": 2500})
	if err != nil || r.IsError || r.Text() != "done" {
		t.Fatalf("an interactive call should outlive the 1 s budget and requestTimeout: %v %+v", err, r)
	}
	r, err = h.CallTool(ctxGuard(t), "2", "mcp__fake__echo", map[string]any{"text": "ok"})
	if err != nil || r.Text() != "ok" {
		t.Fatalf("echo: %v %+v", err, r)
	}
}

// TestInteractiveToolsOnHostWithoutCapabilities: a host without capabilities keeps its
// deadline, so a call of an interactive tool ends with the budget and explains why.
func TestInteractiveToolsOnHostWithoutCapabilities(t *testing.T) {
	t.Parallel()
	h, regs, clock := interactiveSession(t, nil, 2*time.Second)
	for _, f := range regs {
		if f.Has("interactive") {
			t.Fatalf("a host without capabilities got an interactive registration: %s", f.Raw)
		}
	}
	type answer struct {
		r   exttest.ToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := h.CallTool(ctxGuard(t), "1", CallToolName, map[string]any{"server": "fake", "tool": "slow", "arguments": map[string]any{"ms": 60000}})
		done <- answer{r, err}
	}()
	// The requestTimeout, on the injected clock, and the grace for what has arrived.
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, clock, time.Second)
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, clock, lifecycle.SettleGrace)
	a := <-done
	r, err := a.r, a.err
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{`slow of MCP server "fake" waits for a person`, `"interactiveTools"`, "at most 60 s", "no deadline"} {
		if !r.IsError || !strings.Contains(text, want) {
			t.Fatalf("result %q should be an error containing %q", text, want)
		}
	}
}
