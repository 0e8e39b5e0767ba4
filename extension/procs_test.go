package extension

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// waitProcs waits until GOMAXPROCS is n (the deadline only bounds a failure).
func waitProcs(t *testing.T, n int) {
	t.Helper()
	for end := time.Now().Add(hangGuard); runtime.GOMAXPROCS(0) != n; {
		if time.Now().After(end) {
			t.Fatalf("GOMAXPROCS is %d, want %d", runtime.GOMAXPROCS(0), n)
		}
		runtime.Gosched()
	}
}

func TestServeProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(3)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	tests := []struct {
		name  string
		procs int
		want  int // while serving
	}{
		{name: "set at the first call", procs: 1, want: 1},
		{name: "left alone", procs: 0, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := startRun(t, &testHandler{}, Options{ServeProcs: tc.procs}, hooks{})
			x.handshake(newAck())
			if _, err := x.host.CallTool(x.ctx, "1", "echo", nil); err != nil {
				t.Fatal(err)
			}
			waitProcs(t, tc.want)
			if err := x.host.Shutdown(x.ctx); err != nil {
				t.Fatal(err)
			}
			if err := x.runErr(); err != nil {
				t.Fatal(err)
			}
			if got := runtime.GOMAXPROCS(0); got != 3 {
				t.Fatalf("GOMAXPROCS after Run = %d, want 3 again", got)
			}
		})
	}
}

// Before the first call (while Setup runs, and after ready) the process keeps every P.
func TestServeProcsNotDuringSetup(t *testing.T) {
	prev := runtime.GOMAXPROCS(3)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	inSetup := make(chan struct{})
	release := make(chan struct{})
	h := &testHandler{setup: func(ctx context.Context, s *Session) error {
		close(inSetup)
		<-release
		return nil
	}}
	x := startRun(t, h, Options{ServeProcs: 1}, hooks{})
	x.host.ExpectHello(x.ctx)
	if err := x.host.SendAck(newAck()); err != nil {
		t.Fatal(err)
	}
	recv(t, x.ctx, inSetup, "setup")
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Fatalf("GOMAXPROCS during setup = %d, want 3", got)
	}
	close(release)
	if _, err := x.host.NextType(x.ctx, "ready"); err != nil {
		t.Fatal(err)
	}
	// A frame that is not a call is read and answered: the reader has passed ready.
	if err := x.host.SendLine([]byte(`{"type":"event_intercept","id":"i1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := x.host.NextType(x.ctx, "event_intercept_response"); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Fatalf("GOMAXPROCS after ready, before any call = %d, want 3", got)
	}
	if _, err := x.host.CallTool(x.ctx, "1", "echo", nil); err != nil {
		t.Fatal(err)
	}
	waitProcs(t, 1)
}
