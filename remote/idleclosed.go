package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// IdleClosedError is a request that failed on a pooled HTTP/1 connection the server had
// already closed while it sat idle: nothing came back on it, so the server never read
// the request and the call did not run. net/http reports this case with an unexported
// error, so RoundTrip recognises it from the connection's trace instead of the error.
type IdleClosedError struct{ Err error }

func (e *IdleClosedError) Error() string { return e.Err.Error() }
func (e *IdleClosedError) Unwrap() error { return e.Err }

// connTrace is what one request's trace saw of its connection. Its hooks run on
// net/http's goroutines, hence the atomics.
type connTrace struct {
	idleReused atomic.Bool // an HTTP/1 connection taken from the idle pool
	answered   atomic.Bool // a byte of the answer arrived
}

func (c *connTrace) hooks() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			c.idleReused.Store(info.Reused && info.WasIdle && !isHTTP2(info.Conn))
		},
		GotFirstResponseByte: func() { c.answered.Store(true) },
	}
}

// traced is req with c's hooks added to whatever trace it carries.
func (c *connTrace) traced(req *http.Request) *http.Request {
	return req.WithContext(httptrace.WithClientTrace(req.Context(), c.hooks()))
}

// mark is err as an *IdleClosedError when the request died on a stale idle connection
// before any answer; a timeout or a cancelled request may have run, so it stays as it is.
func (c *connTrace) mark(err error) error {
	var ne net.Error
	switch {
	case err == nil, !c.idleReused.Load(), c.answered.Load(),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return err
	}
	return &IdleClosedError{Err: err}
}

// isHTTP2 says whether conn negotiated HTTP/2, whose connection errors net/http retries
// itself and whose stream resets can come after the server ran the request.
func isHTTP2(conn net.Conn) bool {
	tc, ok := conn.(*tls.Conn)
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}
