package bridge

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustCall(t *testing.T, s *lifecycle.Server, tool string, args map[string]any) string {
	t.Helper()
	r, err := s.Call(ctxGuard(t), tool, args, false)
	if err != nil {
		t.Fatalf("%s/%s: %v", s.Name(), tool, err)
	}
	return resultText(r)
}

func TestBackoffThenPark(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"bad": {}, "good": {}})
	e.servers["bad"].OpenErr = func(int) error {
		return &session.EndedError{End: session.End{Cause: session.CauseExited, Status: "exited: exit status 1", Stderr: "fatal: boom"},
			Err: errors.New("initialize: transport closed")}
	}
	b := e.bridge()
	s := e.srv(b, "bad")
	call := func() error {
		_, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true)
		return err
	}
	// The model gets a short reason; the stderr ("fatal: boom") is for the user in /mcp.
	if err := call(); kindOf(err) != session.KindStart || strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "/mcp bad") {
		t.Fatalf("first failure: %v", err)
	}
	if d := b.detailText("bad"); !strings.Contains(d, "fatal: boom") {
		t.Fatalf("/mcp bad lacks the stderr tail:\n%s", d)
	}
	if err := call(); kindOf(err) != session.KindStart { // the first failure is retried at once
		t.Fatalf("second attempt: %v", err)
	}
	// Now backing off: fails fast without opening a session.
	if err := call(); kindOf(err) != lifecycle.KindBackoff || !strings.Contains(err.Error(), "exit status 1") || strings.Contains(err.Error(), "boom") {
		t.Fatalf("during backoff: %v", err)
	}
	if opens, _ := e.servers["bad"].Counts(); opens != 2 {
		t.Fatalf("%d opens during backoff, want 2", opens)
	}
	if st := s.Status(); st.State != lifecycle.StateBackoff || st.Failures != 2 {
		t.Fatalf("status %+v", st)
	}
	for i := 3; i <= lifecycle.ParkAfter; i++ {
		e.clock.Advance(lifecycle.BackoffDelay(i-1) - time.Millisecond)
		if err := call(); kindOf(err) != lifecycle.KindBackoff {
			t.Fatalf("attempt %d before its backoff ended: %v", i, err)
		}
		e.clock.Advance(time.Millisecond)
		if err := call(); kindOf(err) != session.KindStart && kindOf(err) != lifecycle.KindParked {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if st := s.Status().State; st != lifecycle.StateParked {
		t.Fatalf("after %d failures: %s", lifecycle.ParkAfter, st)
	}
	e.clock.Advance(time.Hour)
	err := call()
	if kindOf(err) != lifecycle.KindParked || !strings.Contains(err.Error(), "/mcp start bad") {
		t.Fatalf("parked call: %v", err)
	}
	// One sick server never delays another.
	if got := mustCall(t, e.srv(b, "good"), "echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Fatal(got)
	}
	// /mcp start clears parking and tries again.
	if err := s.Start(ctxGuard(t)); kindOf(err) != session.KindStart {
		t.Fatalf("start after parking: %v", err)
	}
	if st := s.Status(); st.Failures != 1 {
		t.Fatalf("failures after explicit start = %d, want 1", st.Failures)
	}
}

func TestJunkStdoutAndStderrFlood(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"junk":  e.server("-junk", "-banner"),
		"noisy": e.server("-stderr-bytes", "3000000"),
	}, nil)
	b := e.bridge(extension.GenNew)
	if got := mustCall(t, e.srv(b, "junk"), "echo", map[string]any{"text": "clean"}); got != "clean" {
		t.Fatalf("junk server: %q", got)
	}
	n := e.srv(b, "noisy")
	if got := mustCall(t, n, "echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Fatalf("noisy: %q", got)
	}
	total := 0
	for _, l := range n.Status().Stderr {
		total += len(l)
	}
	if total > 8<<10 {
		t.Fatalf("kept %d bytes of stderr, cap is 8 KiB", total)
	}
}

func TestManyToolsServer(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"big": {}})
	e.servers["big"] = inproctest.New(500)
	b := e.bridge()
	changed, errs := b.Refresh(ctxGuard(t), []string{"big"})
	if len(errs) > 0 || len(changed) != 1 {
		t.Fatalf("refresh: changed %v errs %v", changed, errs)
	}
	if n := len(b.Tools("big")); n != 500+3 {
		t.Fatalf("catalog has %d tools", n)
	}
}

// mergeMap is a copy of a with b's entries on top.
func mergeMap(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// TestCallAnswersBeforeHostDeadline: a server whose own timeouts exceed the host's budget
// gets our timeout error first, warning that a non-idempotent call may have been applied.
func TestCallAnswersBeforeHostDeadline(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"requestTimeout": 600}})
	pre := e.bridge()
	if _, errs := pre.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	b := e.bridge()
	b.opts.CallBudget = 300 * time.Millisecond
	// The budget runs on the injected clock: a cold start that takes long on a loaded
	// machine does not eat into it, and it ends exactly when the test says.
	done := make(chan extension.ToolResult, 1)
	go func() {
		done <- b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: "mcp__s__slow", Args: []byte(`{}`)})
	}()
	waitInFlight(t, e.srv(b, "s"), 1)
	e.clock.Advance(300 * time.Millisecond)
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, lifecycle.SettleGrace) // nothing has arrived
	r := <-done
	text := textOf(t, r)
	if !r.IsError || !strings.Contains(text, "before the host's deadline") || !strings.Contains(text, "may already have applied") {
		t.Fatalf("is_error=%v %q", r.IsError, text)
	}
	// A read-only tool's timeout carries no such warning.
	r = b.CallTool(ctxGuard(t), extension.ToolCall{ID: "2", Name: "mcp__s__echo", Args: []byte(`{"text":"x"}`)})
	if r.IsError {
		t.Fatalf("echo after timeout: %q", textOf(t, r))
	}
}

// TestStdioCrashSmoke: end to end, over a pipe and (the wire smoke test of the package)
// with a real process: a crash shows its exit status to the model and its stderr to the
// user only, the next call spawns the server again, and idle sleep leaves no process
// behind.
func TestStdioCrashSmoke(t *testing.T) {
	t.Parallel()
	for _, process := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "process"}[process], func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			if process {
				e.useProcesses()
			}
			e.write(map[string]any{"s": mergeMap(e.server("-crash-after", "2"), map[string]any{"requestTimeout": 50})}, nil)
			b := e.bridge(extension.GenNew)
			s := e.srv(b, "s")
			mustCall(t, s, "echo", map[string]any{"text": "one"})
			_, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": "two"}, false)
			// A crash kind (not a timeout) shows the call failed when the process died, not when
			// the 50 s request timeout ran out.
			if kindOf(err) != session.KindEnded {
				t.Fatalf("second call: %v (kind %d), want a crash error", err, kindOf(err))
			}
			if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "may already have applied") {
				t.Fatalf("crash error does not explain: %v", err)
			}
			// What the server printed is for the user (/mcp s), never for the model.
			if strings.Contains(err.Error(), "crashing on tools/call") || !strings.Contains(lifecycle.UserText(err), "crashing on tools/call #2") {
				t.Fatalf("stderr in the model's error or missing from the user's: %q / %q", err.Error(), lifecycle.UserText(err))
			}
			waitState(t, s, lifecycle.StateAsleep)
			if got := mustCall(t, s, "echo", map[string]any{"text": "three"}); got != "three" {
				t.Fatalf("respawn: %q", got)
			}
			// Idle sleep closes the session and the supervisor takes the whole process tree down.
			e.clock.Advance(s.Config().IdleTimeout)
			wantState(t, s, lifecycle.StateAsleep, "not asleep after idleTimeout")
			if left := testutil.WaitNoProcs(ctxGuard(t), e.marker); len(left) > 0 {
				t.Fatalf("sleeping server still has processes: %v", left)
			}
		})
	}
}

// TestStdioCancelSendsNotification: end to end, over a pipe and (a wire smoke test) to a
// real stdio server process, a cancelled call reaches the server as
// notifications/cancelled for the call's request id.
func TestStdioCancelSendsNotification(t *testing.T) {
	t.Parallel()
	for _, process := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "process"}[process], func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			if process {
				e.useProcesses()
			}
			rec := t.TempDir() + "/rec.jsonl"
			e.write(map[string]any{"s": e.server("-record", rec)}, nil)
			b := e.bridge(extension.GenNew)
			s := e.srv(b, "s")
			mustCall(t, s, "echo", map[string]any{"text": "warm"})
			ctx, cancel := context.WithCancel(ctxGuard(t))
			errc := make(chan error, 1)
			go func() {
				_, err := s.Call(ctx, "slow", map[string]any{"ms": 60000}, false)
				errc <- err
			}()
			call := testutil.WaitRecord(t, rec, guard, func(l testutil.RecordLine) bool { return l.Method == "tools/call" && l.Tool == "slow" })
			cancel()
			if err := <-errc; kindOf(err) != session.KindCanceled {
				t.Fatalf("cancelled call: %v", err)
			}
			got := testutil.WaitRecord(t, rec, guard, func(l testutil.RecordLine) bool { return l.Method == "notifications/cancelled" })
			if got.RequestID() != call.IDString() {
				t.Fatalf("notifications/cancelled for request %q, the call was %q", got.RequestID(), call.IDString())
			}
		})
	}
}
