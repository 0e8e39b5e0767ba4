// Package lifecycle is a server's life: the state machine (Server: single-flight start,
// calls, idle sleep, crash handling, backoff and parking, the ping after a timed-out call,
// task-augmented calls) over a session.Session, and the vocabulary the host side reads:
// states and status, the typed failure (kind, the model's text and the user's), the
// environment a stdio server gets, and how the bridge introduces itself in initialize.
// What it needs of the host (progress, log messages, elicitation, the task board,
// approval) it asks through Host; it never imports bridge.
package lifecycle

import (
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// State is where a server is in its lifecycle.
type State int

// The lifecycle states. A server starts Asleep (or Disabled), wakes on demand, and goes
// back to sleep after its idle timeout.
const (
	StateAsleep   State = iota // not running; the next call starts it
	StateStarting              // spawn/connect + initialize + tools/list under way
	StateReady                 // connected and serving calls
	StateStopping              // being shut down
	StateBackoff               // the last start or run failed; no new start before RetryAt
	StateParked                // failed too often in a row; only /mcp start tries again
	StateDisabled              // disabled in config or the config entry is broken
)

// String is the state as /mcp shows it.
func (s State) String() string {
	switch s {
	case StateAsleep:
		return "asleep"
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateStopping:
		return "stopping"
	case StateBackoff:
		return "backing off"
	case StateParked:
		return "parked"
	case StateDisabled:
		return "disabled"
	}
	return "unknown"
}

// Failure policy: the first failure is retried by the next call at once, later ones wait
// backoffBase·2^(n-2) (capped at BackoffMax), and after ParkAfter failures in a row the
// server is parked.
const (
	backoffBase = 500 * time.Millisecond
	// BackoffMax is the longest wait before the next start is allowed.
	BackoffMax = 30 * time.Second
	// ParkAfter is how many failures in a row park a server.
	ParkAfter = 5
)

// BackoffDelay is how long a server that failed failures times in a row waits before the
// next start.
func BackoffDelay(failures int) time.Duration {
	if failures <= 1 {
		return 0
	}
	d := backoffBase << (failures - 2)
	if d > BackoffMax || d <= 0 {
		return BackoffMax
	}
	return d
}

// Status is a snapshot for /mcp and doctor.
type Status struct {
	State     State
	Tools     int // tools seen on the last successful list (0 if never listed this session)
	InFlight  int
	LastUsed  time.Time
	LastError string
	ErrorAt   time.Time
	RetryAt   time.Time
	Failures  int
	Transport config.Transport
	// Stderr is the tail of the last stdio process's stderr (kept after it exits, for the
	// user only), out of StderrSeen lines it wrote.
	Stderr     []string
	StderrSeen int
	// NeedsLogin: the server wants an OAuth login (/mcp login <server>).
	NeedsLogin bool
	// Protocol is the MCP revision the server spoke last ("" before its first
	// connection; remembered across processes with its cache entry).
	Protocol string
}

// The state machine's own failure kinds, added to the session's (session.Kind, one set
// for every transport), of which a session's failure keeps its own.
const (
	KindBackoff   session.Kind = iota + 100 // not retried yet after earlier failures
	KindParked                              // parked after repeated failures
	KindDisabled                            // disabled or broken in config
	KindStopped                             // stopped (by /mcp stop or shutdown) while in use
	KindUntrusted                           // a project server the user has not approved
)

// Error is a failure of a server operation, worded for the model and the user.
type Error struct {
	Kind   session.Kind
	Server string
	Msg    string // for the model (and the user when User is empty)
	// User is the message for the user when it says more than Msg (the server's last
	// stderr lines, which never go to the model).
	User string
	Err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// UserText is the text of err for the user: with the stderr tail where there is one.
func UserText(err error) string {
	var e *Error
	if errors.As(err, &e) && e.User != "" {
		return e.User
	}
	return err.Error()
}

// ClientName is what the bridge calls itself in MCP initialize; ClientVersion is the
// version it reports when Options.Version is empty.
const (
	ClientName    = "zot-mcp-bridge"
	ClientVersion = "0.1.0"
)

// InitRequest is how the bridge introduces itself on every connection: in initialize,
// and in the _meta of every modern request. The revision asked for is the session's
// to decide (session.Era).
func InitRequest(version string) mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: ClientName, Version: version}
	return req
}
