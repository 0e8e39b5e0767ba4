package bridge

import (
	"github.com/zot-mcp/mcp-bridge/session"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestHungServerIsRestarted: a hung server (once: one stopped with SIGSTOP) used to make
// every call wait the full budget while /mcp said "ready". After a call times out the bridge pings it; no
// answer within PingTimeout (on the injected clock) restarts it before the next call, and
// /mcp says why.
func TestHungServerIsRestarted(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	b := e.bridge()
	s, f := e.srv(b, "s"), e.servers["s"]
	if got := mustCall(t, s, "pid", nil); got != "1" {
		t.Fatalf("pid = %q", got)
	}
	f.Set(func(f *inproctest.Server) { f.HangPing = true })
	ctx, cancel := clock.WithTimeout(ctxGuard(t), e.clock, 10*time.Second) // the call's budget
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "slow", nil, false)
		errc <- err
	}()
	f.WaitStarted(t, "slow")
	// The call's budget ends, and with nothing arrived so does the request: the server is
	// checked.
	e.clock.Advance(10 * time.Second)
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, lifecycle.SettleGrace)
	if err := <-errc; kindOf(err) != session.KindTimeout || !strings.Contains(err.Error(), "before the host's deadline") {
		t.Fatalf("call to a hung server: %v", err)
	}
	// The check has started once its ping waits on the clock.
	if err := e.clock.WaitTimer(ctxGuard(t), lifecycle.PingTimeout); err != nil {
		t.Fatal(err)
	}
	wantState(t, s, lifecycle.StateReady, "while the ping is unanswered")
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, lifecycle.PingTimeout)
	waitState(t, s, lifecycle.StateAsleep)
	if st := b.statusText(); !strings.Contains(st, "not answering") {
		t.Fatalf("/mcp does not say the server hung:\n%s", st)
	}
	f.Set(func(f *inproctest.Server) { f.HangPing = false })
	if got := mustCall(t, s, "pid", nil); got != "2" {
		t.Fatalf("next call answered by session %s, want a new one (2)", got)
	}
}

// waitFor polls cond until it holds, bounded by the test's guard (testutil.WaitFor).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(ctxGuard(t), t, what, cond)
}
