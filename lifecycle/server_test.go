package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/inproctest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// The state machine's life on the fake clock, over in-process sessions (harness_test.go).

func TestIdleSleepFollowsLastCallEnd(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"idleTimeout": 2}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	wantState(t, s, StateAsleep, "initial state")
	if got := mustCall(t, s, "echo", map[string]any{"text": "a"}); got != "a" {
		t.Fatalf("echo = %q", got)
	}
	e.clock.Advance(1900 * time.Millisecond)
	wantState(t, s, StateReady, "slept before its idle timeout")
	// A call restarts the idle period from its end.
	mustCall(t, s, "echo", map[string]any{"text": "b"})
	e.clock.Advance(1900 * time.Millisecond)
	wantState(t, s, StateReady, "idle measured from the first call, not the last")
	e.clock.Advance(200 * time.Millisecond)
	wantState(t, s, StateAsleep, "did not sleep at last call end + idleTimeout")
	if end := f.Last().End(); end.Cause != session.CauseClosed {
		t.Fatalf("sleeping server's session: %v, want closed", end)
	}
	// The next call wakes it.
	if got := mustCall(t, s, "echo", map[string]any{"text": "c"}); got != "c" {
		t.Fatalf("after wake: %q", got)
	}
	if opens, _ := f.Counts(); opens != 2 {
		t.Fatalf("%d sessions opened, want 2", opens)
	}
}

func TestLongCallIsNeverPutToSleep(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"idleTimeout": 1}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	mustCall(t, s, "echo", map[string]any{"text": "warm"})
	ctx, cancel := context.WithCancel(ctxGuard(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "slow", nil, true)
		done <- err
	}()
	f.WaitStarted(t, "slow")
	waitInFlight(t, s, 1)
	// Far past the idle timeout (1 s) while the call runs, but within requestTimeout (60 s):
	// an hour also fired the call's own deadline, which raced the cancel below.
	e.clock.Advance(30 * time.Second)
	wantState(t, s, StateReady, "server with a call in flight went to")
	cancel()
	if err := <-done; KindOf(err) != session.KindCanceled {
		t.Fatalf("slow call: %v", err)
	}
	e.clock.Advance(999 * time.Millisecond)
	wantState(t, s, StateReady, "slept early")
	e.clock.Advance(time.Millisecond)
	wantState(t, s, StateAsleep, "not asleep after the call ended + idle")
}

func TestIdleZeroMeansNeverSleep(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"idleTimeout": 0}})
	l := e.load()
	s := e.srv(l, "s")
	mustCall(t, s, "echo", map[string]any{"text": "x"})
	if n := e.clock.Pending(); n != 0 {
		t.Fatalf("%d idle timers armed for idleTimeout 0", n)
	}
	e.clock.Advance(24 * time.Hour)
	wantState(t, s, StateReady, "state")
}

// TestCrashFailsInFlightAtOnceAndRespawns: the session's done signal fails a call in
// flight at once with how the process ended (not when its request timeout runs out),
// and the next call starts the server again.
func TestCrashFailsInFlightAtOnceAndRespawns(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"requestTimeout": 3600}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	mustCall(t, s, "echo", map[string]any{"text": "one"})
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctxGuard(t), "slow", nil, false)
		errc <- err
	}()
	f.WaitStarted(t, "slow")
	f.Last().Exit("exited: exit status 3", "crashing on tools/call #2")
	err := <-errc
	if KindOf(err) != session.KindEnded {
		t.Fatalf("call in flight: %v (kind %d), want a crash error", err, KindOf(err))
	}
	if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "may already have applied") {
		t.Fatalf("crash error does not explain: %v", err)
	}
	// What the server printed is for the user (/mcp s), never for the model.
	if strings.Contains(err.Error(), "crashing on tools/call") || !strings.Contains(UserText(err), "crashing on tools/call #2") {
		t.Fatalf("stderr in the model's error or missing from the user's: %q / %q", err.Error(), UserText(err))
	}
	waitState(t, s, StateAsleep)
	if st := s.Status(); st.Failures != 1 || !strings.Contains(st.LastError, "crashing on tools/call #2") {
		t.Fatalf("status after the crash: %+v", st)
	}
	if got := mustCall(t, s, "echo", map[string]any{"text": "three"}); got != "three" {
		t.Fatalf("respawn: %q", got)
	}
	if opens, _ := f.Counts(); opens != 2 {
		t.Fatalf("%d sessions opened, want 2", opens)
	}
}

func TestHungStartTimesOutAndDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"hung": {"connectTimeout": 1}, "fine": {}})
	e.servers["hung"].HangOpen = true
	l := e.load()
	hungErr := make(chan error, 1)
	go func() {
		_, err := e.srv(l, "hung").Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true)
		hungErr <- err
	}()
	waitState(t, e.srv(l, "hung"), StateStarting)
	for i := 0; i < 5; i++ {
		if got := mustCall(t, e.srv(l, "fine"), "echo", map[string]any{"text": fmt.Sprint(i)}); got != fmt.Sprint(i) {
			t.Fatal(got)
		}
	}
	select {
	case err := <-hungErr:
		t.Fatalf("hung server answered before its connectTimeout: %v", err)
	default:
	}
	// connectTimeout runs on the injected clock.
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, time.Second)
	err := <-hungErr
	if KindOf(err) != session.KindStart || !strings.Contains(err.Error(), "connectTimeout") {
		t.Fatalf("hung start: %v", err)
	}
}

// TestStopDuringStart: a stop while the server is starting ends the start; the callers
// waiting for it are told, and the next call starts it afresh.
func TestStopDuringStart(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	f := e.servers["s"]
	f.HangOpen = true
	l := e.load()
	s := e.srv(l, "s")
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true)
		errc <- err
	}()
	waitState(t, s, StateStarting)
	s.Stop(ctxGuard(t))
	if err := <-errc; KindOf(err) != KindStopped {
		t.Fatalf("call waiting for a stopped start: %v", err)
	}
	wantState(t, s, StateAsleep, "after a stop during start")
	if st := s.Status(); st.Failures != 0 {
		t.Fatalf("a stop counted as a failure: %+v", st)
	}
	f.Set(func(f *inproctest.Server) { f.HangOpen = false })
	if got := mustCall(t, s, "echo", map[string]any{"text": "y"}); got != "y" {
		t.Fatalf("after the stop: %q", got)
	}
}

func TestSingleFlightStart(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	l := e.load()
	s := e.srv(l, "s")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mustCall(t, s, "echo", map[string]any{"text": "x"}) }()
	}
	wg.Wait()
	// One open; a modern connection has no initialize, a legacy one has one.
	if opens, inits := e.servers["s"].Counts(); opens != 1 || inits > 1 {
		t.Fatalf("20 concurrent calls on a sleeping server opened %d sessions, %d initializes", opens, inits)
	}
}

func TestCancellationReachesServer(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	mustCall(t, s, "echo", map[string]any{"text": "warm"})
	ctx, cancel := context.WithCancel(ctxGuard(t))
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "slow", nil, false)
		errc <- err
	}()
	f.WaitStarted(t, "slow")
	cancel()
	if err := <-errc; KindOf(err) != session.KindCanceled {
		t.Fatalf("cancelled call: %v", err)
	}
	select {
	case <-f.Cancelled:
	case <-ctxGuard(t).Done():
		t.Fatal("the server's handler never saw the cancellation")
	}
	wantState(t, s, StateReady, "a cancelled call is no failure")
}

func TestConcurrentCallsAcrossServers(t *testing.T) {
	t.Parallel()
	entries := map[string]map[string]any{"hung": {"connectTimeout": 30}}
	for i := 0; i < 10; i++ {
		entries[fmt.Sprintf("s%d", i)] = map[string]any{}
	}
	e := newInprocEnv(t, entries)
	e.servers["hung"].HangOpen = true
	l := e.load()
	// A call stuck on a hung server must not slow the others.
	go func() { _, _ = e.srv(l, "hung").Call(ctxGuard(t), "echo", map[string]any{"text": "x"}, true) }()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("s%d", i%10)
			want := fmt.Sprintf("%s-call-%d", name, i)
			r, err := e.srv(l, name).Call(ctxGuard(t), "echo", map[string]any{"text": want}, true)
			if err != nil {
				errs <- err
				return
			}
			if got := resultText(r); got != want {
				errs <- fmt.Errorf("call %d got %q, want %q", i, got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := e.srv(l, "hung").Status().State; st != StateStarting {
		t.Fatalf("hung server state %s", st)
	}
}

// TestSlowToolIsNotRestarted: a timed-out call to a server that still answers pings
// leaves the server running.
func TestSlowToolIsNotRestarted(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	pid := mustCall(t, s, "pid", nil)
	ctx, cancel := clock.WithTimeout(ctxGuard(t), e.clock, time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "slow", nil, true)
		errc <- err
	}()
	f.WaitStarted(t, "slow")
	e.clock.Advance(time.Second)
	testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, SettleGrace) // nothing has arrived
	if err := <-errc; KindOf(err) != session.KindTimeout {
		t.Fatalf("slow call: %v", err)
	}
	waitFor(t, "the ping check to end", func() bool { return !s.Checking() })
	wantState(t, s, StateReady, "after a slow call to a server that answers pings")
	if got := mustCall(t, s, "pid", nil); got != pid {
		t.Fatalf("server restarted (session %s, was %s)", got, pid)
	}
}

// TestOversizeEndAnswersBeforeTheCloseEnds: a connection ended by an over-size reply is
// retired at once and closed in the background: the call in flight fails with the cap's
// error while the close is still running (a real close waits out stop graces or an HTTP
// DELETE), a Stop meanwhile waits for that close, and the next call starts afresh only
// after it.
func TestOversizeEndAnswersBeforeTheCloseEnds(t *testing.T) {
	t.Parallel()
	e := newInprocEnv(t, map[string]map[string]any{"s": {"requestTimeout": 3600}})
	l := e.load()
	s, f := e.srv(l, "s"), e.servers["s"]
	mustCall(t, s, "echo", map[string]any{"text": "one"})
	release := make(chan struct{})
	first := f.Last()
	first.HoldClose(release)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctxGuard(t), "slow", nil, true)
		errc <- err
	}()
	f.WaitStarted(t, "slow")
	first.Lose(&session.TooLargeError{Limit: 1 << 20})
	var err error
	select { // before release: the call does not wait for the close
	case err = <-errc:
	case <-ctxGuard(t).Done():
		close(release)
		t.Fatal("the call waited for the retired connection's close")
	}
	if err == nil || !strings.Contains(err.Error(), "MCP_BRIDGE_MAX_REPLY_MB") {
		t.Fatalf("call in flight: %v, want the cap's error", err)
	}
	waitState(t, s, StateStopping)
	stopped := make(chan struct{})
	go func() {
		s.Stop(ctxGuard(t))
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned while the retired connection was still closing")
	case <-time.After(50 * time.Millisecond): // a bound on a non-event: Stop must still be waiting
	}
	close(release)
	<-stopped
	wantState(t, s, StateAsleep, "after the close")
	if got := mustCall(t, s, "echo", map[string]any{"text": "two"}); got != "two" {
		t.Fatalf("next call: %q", got)
	}
	if opens, _ := f.Counts(); opens != 2 {
		t.Fatalf("%d sessions opened, want 2", opens)
	}
}
