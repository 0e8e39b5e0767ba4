//go:build unix

package bridge

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestHungServerIsRestarted: a server stopped with SIGSTOP used to make every call wait the
// full budget while /mcp said "ready". After a call times out the bridge pings it; no
// answer within pingTimeout (on the injected clock) restarts it before the next call, and
// /mcp says why.
func TestHungServerIsRestarted(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server()}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	b := e.bridge(extension.GenNew)
	b.opts.CallBudget = 10 * time.Second
	s := e.srv(b, "s")
	pid, err := strconv.Atoi(mustCall(t, s, "pid", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	done := make(chan extension.ToolResult, 1)
	go func() {
		done <- b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: "mcp__s__echo", Args: []byte(`{"text":"x"}`)})
	}()
	waitInFlight(t, s, 1)
	e.clock.Advance(10 * time.Second) // the call's budget ends: the server is checked
	if r := <-done; !r.IsError || !strings.Contains(textOf(t, r), "before the host's deadline") {
		t.Fatalf("call to a stopped server: %q", textOf(t, r))
	}
	waitFor(t, "the ping check to start", s.checking)
	wantState(t, s, StateReady, "while the ping is unanswered")
	e.clock.Advance(pingTimeout)
	waitState(t, s, StateAsleep)
	if st := b.statusText(); !strings.Contains(st, "not answering") {
		t.Fatalf("/mcp does not say the server hung:\n%s", st)
	}
	got, err := strconv.Atoi(mustCall(t, s, "pid", nil))
	if err != nil || got == pid {
		t.Fatalf("next call answered by pid %d (err %v), want a new process (old %d)", got, err, pid)
	}
}

// TestSlowToolIsNotRestarted: a timed-out call to a server that still answers pings
// leaves the server running.
func TestSlowToolIsNotRestarted(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"s": mergeMap(e.server(), map[string]any{"requestTimeout": 0.2})}, nil)
	b := e.bridge(extension.GenNew)
	s := e.srv(b, "s")
	pid := mustCall(t, s, "pid", nil)
	if _, err := s.Call(ctxGuard(t), "slow", map[string]any{"ms": 60000}, true); kindOf(err) != KindTimeout {
		t.Fatalf("slow call: %v", err)
	}
	waitFor(t, "the ping check to end", func() bool { return !s.checking() })
	if got := mustCall(t, s, "pid", nil); got != pid {
		t.Fatalf("server restarted (pid %s, was %s)", got, pid)
	}
}

// waitFor polls cond until it holds (bounded by the guard).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := ctxGuard(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
