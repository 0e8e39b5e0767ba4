package bridge

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// lostCause says why a stdio connection failed under a request.
type lostCause int

const (
	lostNot      lostCause = iota // the request failed for another reason (or the caller gave up first)
	lostExited                    // the server process exited
	lostClosed                    // we closed the connection (stop, shutdown)
	lostTooLarge                  // a reply over the size limit ended the stream
)

// transportLost reports whether err means the pipe to the server is gone rather than
// that the server answered with an error.
func transportLost(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// markClosing records that the bridge itself is closing the connection, so a request
// that fails because of it is not taken for a crash.
func (c *conn) markClosing() {
	if c.closing != nil {
		c.closeOnce.Do(func() { close(c.closing) })
	}
}

// lostBecause decides, from events only, why a request on a stdio connection failed with
// err. The transport notices a dead server (stdout EOF) before the process is reaped, so
// when the pipe is gone it waits for whichever comes: the exit, our own close, or the end
// of ctx (a server that closed stdout but keeps running is a plain failure).
func (c *conn) lostBecause(ctx context.Context, err error) lostCause {
	if c.proc == nil || err == nil {
		return lostNot
	}
	if !transportLost(err) || ctx.Err() != nil {
		select { // the exit may already be known; it explains better than a timeout
		case <-c.proc.exited:
			return lostExited
		case <-c.replyLost:
			return lostTooLarge
		default:
			return lostNot
		}
	}
	select {
	case <-c.proc.exited:
		return lostExited
	case <-c.replyLost:
		return lostTooLarge
	case <-c.closing:
		select { // a stop racing a crash: the exit is the truer story
		case <-c.proc.exited:
			return lostExited
		default:
			return lostClosed
		}
	case <-ctx.Done():
		return lostNot
	}
}

// withClockTimeout is context.WithTimeout on the injected clock, so budgets that decide
// what the model is told are testable without waiting: once d has passed on clock, Err
// is context.DeadlineExceeded.
func withClockTimeout(parent context.Context, clock Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx := &clockCtx{Context: parent, done: make(chan struct{})}
	t := clock.AfterFunc(d, func() { ctx.finish(context.DeadlineExceeded) })
	stop := context.AfterFunc(parent, func() { ctx.finish(parent.Err()) })
	return ctx, func() {
		t.Stop()
		stop()
		ctx.finish(context.Canceled)
	}
}

type clockCtx struct {
	context.Context
	once sync.Once
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (c *clockCtx) finish(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	})
}

func (c *clockCtx) Done() <-chan struct{} { return c.done }

func (c *clockCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
