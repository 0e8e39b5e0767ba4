package session

import (
	"context"
	"io"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Pipe says how to run an MCP server in this process behind the stdio framing, in place
// of a process: the session reads and writes it through the same transport, reply limiter
// and loss detection as a process's pipes, and its end plays the process's exit.
type Pipe struct {
	// Name is the server's, for the log.
	Name string
	// Serve runs the server: it reads what the session writes from in and writes what
	// the session reads to out (one JSON-RPC message a line), and to stderr what a process
	// would print there, until in ends or ctx is cancelled. Its return is the exit: nil
	// is status 0, an error the exit status its text gives ("exit status 3").
	Serve func(ctx context.Context, in io.Reader, out, stderr io.Writer) error
	// MaxReply bounds one message read from the server (0: DefaultMaxReply).
	MaxReply int
	Log      zerolog.Logger
	Clock    clock.Clock // for the stderr log's rate and the stop and reap graces (nil: the system clock)
	// Tail receives the server's stderr lines; nil: a new one.
	Tail *Ring
}

// OpenPipe starts o.Serve on a goroutine behind pipes and initializes a session over
// them within ctx, as OpenStdio does over a process's. A Serve that returns during the
// handshake fails it with an *EndedError (CauseExited) as an exiting process does.
func OpenPipe(ctx context.Context, o Pipe, h Handlers) (Session, error) {
	return openPipe(ctx, o, h, nil)
}

// openPipe is OpenPipe with the limiter's Replaced hook, for tests; nil: the stdio one.
func openPipe(ctx context.Context, o Pipe, h Handlers, replaced func()) (Session, error) {
	tail := o.Tail
	if tail == nil {
		tail = NewStderrTail()
	}
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	start := func() (peer, io.Reader, io.WriteCloser, error) {
		p := startPipe(o, tail)
		return p, p.outR, p.inW, nil
	}
	return openFramed(ctx, framing{name: o.Name, maxReply: o.MaxReply, log: o.Log, replaced: replaced, clock: o.Clock}, start, h)
}

// pipeServer is o.Serve running on its goroutine: the peer of a pipe session.
type pipeServer struct {
	inW    *io.PipeWriter // the server's stdin, our end
	outR   *io.PipeReader // the server's stdout, our end
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's return, valid once done is closed
	tail   *Ring
	clock  clock.Clock
}

// pipeStopGrace bounds how long stop waits for a Serve that ignores both its stdin and
// its context: as long as a process gets before its SIGKILL has been sent and waited on.
// A goroutine cannot be killed, so it is left running; the session is ended anyway.
const pipeStopGrace = stdinGrace + sigtermGrace + killGrace

func startPipe(o Pipe, tail *Ring) *pipeServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	p := &pipeServer{inW: inW, outR: outR, cancel: cancel, done: make(chan struct{}), tail: tail, clock: o.Clock}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		out := NewLineLog(o.Log, o.Name, "server stderr", o.Clock)
		pipeStderr(errR, tail, out)
	}()
	go func() {
		err := o.Serve(ctx, inR, outW, errW)
		// The exit is announced once stderr is drained, so the tail explains it; a pipe's
		// writes are read before they return, so nothing the server wrote is lost.
		_ = errW.Close()
		<-stderrDone
		p.err = err
		close(p.done)
		_ = outW.Close()
		// The session's writes now fail as on a dead process's stdin (EPIPE), which tells
		// the framing the server is gone (TransportLost).
		_ = inR.CloseWithError(syscall.EPIPE)
		cancel()
	}()
	return p
}

func (p *pipeServer) exited() <-chan struct{} { return p.done }

func (p *pipeServer) exitEnd() End {
	status := "exited with status 0"
	if p.err != nil {
		status = "exited: " + p.err.Error()
	}
	return End{Cause: CauseExited, Status: status, Stderr: p.tail.String()}
}

// stop closes the server's stdin and cancels its context (what SIGTERM is to a process),
// and waits within ctx and pipeStopGrace for Serve to return. Its stdout is closed too:
// nobody reads it any more, and a server blocked writing to it would never return (a
// process's writes would fail on the closed pipe, or fill the kernel's buffer and be
// killed).
func (p *pipeServer) stop(ctx context.Context) {
	_ = p.inW.Close()
	p.cancel()
	_ = p.outR.CloseWithError(syscall.EPIPE)
	grace, t := clock.After(p.clock, pipeStopGrace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-grace:
	case <-ctx.Done():
	}
}
