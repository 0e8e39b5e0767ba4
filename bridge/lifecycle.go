package bridge

import "github.com/zot-mcp/mcp-bridge/lifecycle"

// The lifecycle's vocabulary under the names the bridge's callers use (package
// lifecycle owns them).
type (
	// State is where a server is in its lifecycle (lifecycle.State).
	State = lifecycle.State
	// Status is a server's snapshot for /mcp and doctor (lifecycle.Status).
	Status = lifecycle.Status
	// ErrKind classifies a failure (lifecycle.ErrKind).
	ErrKind = lifecycle.ErrKind
	// Error is a failure of a server operation (lifecycle.Error).
	Error = lifecycle.Error
)

// The lifecycle states (lifecycle.State).
const (
	StateAsleep   = lifecycle.StateAsleep
	StateStarting = lifecycle.StateStarting
	StateReady    = lifecycle.StateReady
	StateStopping = lifecycle.StateStopping
	StateBackoff  = lifecycle.StateBackoff
	StateParked   = lifecycle.StateParked
	StateDisabled = lifecycle.StateDisabled
)

// Failure kinds (lifecycle.ErrKind).
const (
	KindStart       = lifecycle.KindStart
	KindBackoff     = lifecycle.KindBackoff
	KindParked      = lifecycle.KindParked
	KindDisabled    = lifecycle.KindDisabled
	KindCrashed     = lifecycle.KindCrashed
	KindTimeout     = lifecycle.KindTimeout
	KindCanceled    = lifecycle.KindCanceled
	KindCall        = lifecycle.KindCall
	KindStopped     = lifecycle.KindStopped
	KindAuth        = lifecycle.KindAuth
	KindUnreachable = lifecycle.KindUnreachable
	KindTLS         = lifecycle.KindTLS
	KindBadResponse = lifecycle.KindBadResponse
	KindUntrusted   = lifecycle.KindUntrusted
)

// ClientName is what the bridge calls itself in MCP initialize; ClientVersion is the
// version it reports when Options.Version is empty.
const (
	ClientName    = lifecycle.ClientName
	ClientVersion = lifecycle.ClientVersion
)

// UserText is the text of err for the user: with the stderr tail where there is one
// (lifecycle.UserText).
func UserText(err error) string { return lifecycle.UserText(err) }
