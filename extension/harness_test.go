package extension

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// hangGuard bounds every wait in these tests; it is a guard against hangs,
// never a measured assertion.
const hangGuard = 30 * time.Second

// newAck is a NEW host's hello_ack.
func newAck() exttest.Ack { return exttest.Ack{Capabilities: []string{"call_tool"}, Cwd: "/proj"} }

// legacyAck is an OLD or MID host's hello_ack (no capabilities key).
func legacyAck() exttest.Ack { return exttest.Ack{Cwd: "/proj"} }

// testHandler is a Handler made of optional funcs. Without call it echoes
// "name:args"; without cmd it displays the command name.
type testHandler struct {
	setup func(ctx context.Context, s *Session) error
	call  func(ctx context.Context, c ToolCall) ToolResult
	cmd   func(ctx context.Context, c Command) CommandResponse
}

func (h *testHandler) Setup(ctx context.Context, s *Session) error {
	if h.setup == nil {
		return nil
	}
	return h.setup(ctx, s)
}

func (h *testHandler) CallTool(ctx context.Context, c ToolCall) ToolResult {
	if h.call == nil {
		return ToolResult{Content: []Content{{Type: "text", Text: c.Name + ":" + string(c.Args)}}}
	}
	return h.call(ctx, c)
}

func (h *testHandler) RunCommand(ctx context.Context, c Command) CommandResponse {
	if h.cmd == nil {
		return CommandResponse{Action: "display", Display: c.Name}
	}
	return h.cmd(ctx, c)
}

// harness runs one extension in-process against a fake host.
type harness struct {
	t    testing.TB
	ctx  context.Context
	host *exttest.Host
	out  io.Writer
	logs *testutil.SyncBuffer
	errc chan error

	once sync.Once
	err  error
}

// startRun starts run with h on a fresh pipe host. The test's cleanup closes
// stdin and waits for Run to return.
func startRun(t testing.TB, h Handler, opts Options, hk hooks) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	host, in, out := exttest.NewPipe(t)
	logs := &testutil.SyncBuffer{}
	if opts.Name == "" {
		opts.Name = "test"
	}
	opts.Log = zerolog.New(logs).Level(zerolog.DebugLevel)
	x := &harness{t: t, ctx: ctx, host: host, out: out, logs: logs, errc: make(chan error, 1)}
	go func() { x.errc <- run(ctx, in, out, h, opts, hk) }()
	t.Cleanup(func() {
		_ = host.CloseStdin()
		_ = x.runErr()
		if t.Failed() {
			t.Logf("extension log:\n%s", logs.String())
		}
	})
	return x
}

// runErr waits for Run to return and returns its error.
func (x *harness) runErr() error {
	x.t.Helper()
	x.once.Do(func() {
		select {
		case x.err = <-x.errc:
		case <-x.ctx.Done():
			x.err = fmt.Errorf("run did not return: %w", x.ctx.Err())
			x.t.Errorf("%v", x.err)
		}
	})
	return x.err
}

// handshake expects hello and completes the handshake with ack.
func (x *harness) handshake(ack exttest.Ack) []exttest.Frame {
	x.t.Helper()
	x.host.ExpectHello(x.ctx)
	return x.host.Handshake(x.ctx, ack)
}

// closeOutput closes the extension's stdout pipe (after Run returned) and
// waits until the host has read everything.
func (x *harness) closeOutput() {
	x.t.Helper()
	if err := x.out.(io.Closer).Close(); err != nil {
		x.t.Fatal(err)
	}
	if err := x.host.Wait(x.ctx); err != nil {
		x.t.Fatal(err)
	}
}

// recv waits for one value from c, failing the test after the hang guard.
func recv[T any](t testing.TB, ctx context.Context, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
		var zero T
		return zero
	}
}

// sessionOf returns a Setup func that hands the session to c.
func sessionOf(c chan<- *Session) func(context.Context, *Session) error {
	return func(_ context.Context, s *Session) error {
		c <- s
		return nil
	}
}
