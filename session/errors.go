package session

import (
	"context"
	"errors"
)

// Kind is what kind of failure a request or a connect met: one set for every transport,
// so that nothing above a session needs to know which one failed. The state machine
// (lifecycle) adds its own kinds (backoff, parking...) beside these, never a mapping.
type Kind int

// The kinds a session reports.
const (
	KindCall        Kind = iota + 1 // the server answered with an error, or the request failed otherwise (it may have run)
	KindStart                       // connecting or initializing failed
	KindEnded                       // the session had ended, or ended under the request (EndedError says why)
	KindTimeout                     // our deadline passed
	KindCanceled                    // the caller gave up
	KindAuth                        // HTTP 401/403: credentials missing or refused
	KindUnreachable                 // DNS failure, connection refused or reset
	KindTLS                         // TLS handshake or certificate failure
	KindBadResponse                 // HTTP 404, 5xx, an HTML page or other non-MCP answer
)

// Error is a failure a transport's connector classified, worded for the model without
// the "MCP server" prefix (the state machine adds it, with its redaction).
type Error struct {
	Kind Kind
	Msg  string
	// MaybeRan: the request may have reached the server and run, so a retry may repeat it.
	MaybeRan bool
	Err      error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ErrEnded is the request's own error when it was made on a session that had already
// ended: it was never sent (the *EndedError around it says how the session ended).
var ErrEnded = errors.New("the session has ended")

// KindOf is the kind of a request's failure on any transport: KindEnded for an
// *EndedError, an *Error's own kind, KindTimeout or KindCanceled for a context's end,
// else KindCall; 0 for nil.
func KindOf(err error) Kind {
	var ended *EndedError
	var e *Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ended):
		return KindEnded
	case errors.As(err, &e):
		return e.Kind
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	}
	return KindCall
}

// LostText says how a session's transport broke, for the model.
func LostText(e End) string {
	var se *Error
	if errors.As(e.Err, &se) {
		return se.Msg
	}
	if e.Err != nil {
		return "the connection was lost (" + e.Err.Error() + ")"
	}
	return "the connection was lost"
}
