package session

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/rawio"
	"github.com/zot-mcp/mcp-bridge/internal/zslog"
)

// Stdio says how to run one stdio server.
type Stdio struct {
	Config *config.Server
	Dir    string   // working directory
	Env    []string // the process environment (the bridge applies envPolicy)
	// Supervisor, when non-empty, is the argv prefix that runs the supervise helper.
	Supervisor []string
	// MaxReply bounds one message read from the server (0: DefaultMaxReply).
	MaxReply int
	Log      zerolog.Logger
	Clock    clock.Clock
	// Redact hides secrets in the stderr lines that go to the log (nil: none).
	Redact func(string) string
	// Tail receives the process's stderr lines (for /mcp <server>); nil: a new one.
	Tail *Ring
}

// peer is what runs at the other end of a stdio stream: a supervised process
// (process), or an MCP server in this process behind a pipe (pipeServer). The framing
// knows it only by its end signal and how to stop it.
type peer interface {
	// exited is closed when the server has ended on its own or been stopped.
	exited() <-chan struct{}
	// exitEnd is the End of a server that exited (valid once exited is closed).
	exitEnd() End
	// stop ends the server within ctx (a process tree: stdin, SIGTERM, SIGKILL).
	stop(ctx context.Context)
}

// stdioSession is mcp-go's stdio transport over one server's stream pair, read through
// the reply limiter; it ends when the server does or the limiter gives the stream up.
type stdioSession struct {
	*Client
	srv peer
	lim *ReplyLimiter
}

// framing is what a stdio session needs to read and write one server's stream.
type framing struct {
	name     string // the server's name, for the log
	maxReply int
	log      zerolog.Logger
	redact   func(string) string
	// replaced is the reply limiter's Replaced (nil: give a dropped reply's memory back).
	replaced func()
	clock    clock.Clock // bounds the wait for the end after a loss (nil: the system clock)
}

// startFunc starts the server once more, for one connection attempt: its end signal,
// what it writes (read by the session) and what it reads (written by it).
type startFunc func() (peer, io.Reader, io.WriteCloser, error)

// OpenStdio spawns the server, starts mcp-go's stdio transport over its pipes and
// initializes within ctx. When the process exits during the handshake the error is an
// *EndedError whose End carries the exit status and stderr tail.
func OpenStdio(ctx context.Context, o Stdio, h Handlers) (Session, error) {
	tail := o.Tail
	if tail == nil {
		tail = NewStderrTail()
	}
	start := func() (peer, io.Reader, io.WriteCloser, error) {
		p, err := spawn(&o, tail)
		if err != nil {
			return nil, nil, nil, err
		}
		// The pipes every call crosses are read and written with raw system calls (rawio).
		return p, rawio.Reader(p.stdout), rawio.WriteCloser(p.stdin), nil
	}
	return openFramed(ctx, framing{name: o.Config.Name, maxReply: o.MaxReply, log: o.Log, redact: o.Redact, clock: o.Clock}, start, h)
}

// openFramed starts the server and initializes a session over its stream within ctx.
func openFramed(ctx context.Context, f framing, start startFunc, h Handlers) (Session, error) {
	srv, r, w, err := start()
	if err != nil {
		return nil, err
	}
	replaced := f.replaced
	if replaced == nil {
		// A dropped reply's memory is given back now rather than whenever the scavenger
		// gets to it.
		replaced = func() { go debug.FreeOSMemory() }
	}
	lim := NewReplyLimiter(r, LimitOptions{Limit: f.maxReply,
		Dropped:    LogDropped(f.log, f.name, config.TransportStdio),
		Unreadable: LogUnreadable(f.log, f.name, config.TransportStdio),
		Replaced:   replaced})
	hw := h
	hw.Wrap = func(tr transport.Interface) transport.Interface {
		if h.Wrap != nil {
			tr = h.Wrap(tr)
		}
		return withTypedReplies(tr)
	}
	s := &stdioSession{Client: NewClient(newIOTransport(lim, w, f.log.With().Str("server", f.name).Logger(), f.redact), config.TransportStdio, hw), srv: srv, lim: lim}
	s.SetLink(Link{Lost: TransportLost, Clock: f.clock})
	go s.watch()
	if err := s.Initialize(ctx, h); err != nil {
		lost := s.awaitEnd(ctx, err)
		_ = s.Close(context.Background())
		if s.probeEnded() && ctx.Err() == nil {
			// The server exited on server/discover: a legacy server that cannot take an
			// unknown method. Started once more, it is spoken to with initialize only,
			// and the connection says so (Info.Protocol) to be remembered.
			f.log.Info().Str("server", f.name).Msg("server exited on server/discover; starting it again with initialize")
			h.Era = h.Era.Legacy()
			return openFramed(ctx, f, start, h)
		}
		if lost != nil && lost.End.Cause == CauseExited {
			return nil, lost
		}
		return nil, err
	}
	return s, nil
}

// newIOTransport is mcp-go's transport over a server's pipes, logging to log. NewIO takes
// no options and logs to slog's default logger, which in the CLI is the user's terminal
// (an answer to the server's request that finds the pipe closed at exit printed an ERROR
// line after "All good."); its stdio options are functions over the same struct, so the
// logger option is applied to it here, in this one place.
func newIOTransport(r io.Reader, w io.WriteCloser, log zerolog.Logger, redact func(string) string) *transport.Stdio {
	t := transport.NewIO(r, w, nil)
	transport.WithCommandLogger(zslog.New(log, redact))(t)
	return t
}

// watch ends the session when the server exits or the reply limiter gave up on the
// stream, whichever comes first.
func (s *stdioSession) watch() {
	select {
	case <-s.srv.exited():
		s.Finish(s.srv.exitEnd())
	case <-s.lim.lost:
		s.Finish(End{Cause: CauseLost, Err: &TooLargeError{Limit: s.lim.limit}})
	case <-s.done:
	}
}

// Close closes stdin (through mcp-go's client) and stops the server (for a process, its
// tree: stdin, then SIGTERM, then SIGKILL).
func (s *stdioSession) Close(ctx context.Context) error {
	s.Finish(End{Cause: CauseClosed})
	done := make(chan error, 1)
	go func() { done <- s.cl.Close() }()
	s.srv.stop(ctx)
	return <-done
}

// TransportLost reports whether err means the pipe to the server is gone rather than
// that the server answered with an error.
func TransportLost(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// TooLargeError is why a stream ended after an over-size reply without an id, or why a
// server request or notification was dropped (ReplyLimiter).
type TooLargeError struct {
	Limit int
	// Method is the dropped request's or notification's method, when it was found.
	Method string
	// Dropped: the message was the server's own request or notification, dropped with
	// no call failing; the text says so rather than speak of a reply.
	Dropped bool
}

func (e *TooLargeError) Error() string {
	if e.Dropped {
		return droppedText(e.Limit, e.Method)
	}
	return tooLargeText(e.Limit)
}
func (e *TooLargeError) Is(target error) bool { return target == ErrReplyTooLarge }
