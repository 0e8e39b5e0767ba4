// Package commands is the /mcp command language: it parses a command line, runs it over
// the Host (the bridge, or a fake in tests) and words the answer — the dashboard, one
// server's details, help, lifecycle commands, and adding servers from templates. It holds
// no state of its own and knows no MCP session; what it reads and does on servers goes
// through Host and Server.
package commands

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/remote"
)

// Name is the command the host registers (/mcp).
const Name = "mcp"

// Host is what the commands read and do. The bridge implements it; so do tests' fakes.
type Host interface {
	// Surface words commands for where the user reads the answer (zot or the CLI).
	Surface() Surface
	// Names lists the configured servers, sorted.
	Names() []string
	// Server returns one configured server.
	Server(name string) (Server, bool)
	Config() *config.Config
	// ZotHome and ProjectDir locate the global and project config files.
	ZotHome() string
	ProjectDir() string
	// LookupEnv reads the environment zot runs in (to say which variables are unset).
	LookupEnv(name string) (string, bool)
	// Mode is the tool exposure mode in use, and whether it is "deferred".
	Mode() (mode string, deferred bool)
	// CachePath is the tool cache file (to tell fresh, stale and missing entries apart).
	CachePath() string
	// CachedTools counts the catalog's tools per server.
	CachedTools() map[string]int
	// MoreDetail is what /mcp <server> shows after the server's details: its running
	// tasks and its last log messages ("" when there are none).
	MoreDetail(name string) string
	// ToolChanges is how a server's tools differ from the ones the user approved, with
	// the old and new texts (nil when its tools are not pinned or are the approved ones).
	ToolChanges(name string) *ToolChange
	// Refresh starts the named servers, lists their tools and updates the cache.
	Refresh(ctx context.Context, names []string) RefreshSummary
	// Background runs f on a goroutine the host waits for when it closes; ctx ends then.
	// Once the host is closing, f does not run at all.
	Background(f func(ctx context.Context))
	// BackgroundContext is the context Background passes: it ends when the host closes
	// (a login's window is derived from it before its goroutine starts).
	BackgroundContext() context.Context
	// CommandWait is closed when a command has waited as long as the host's command
	// deadline allows (on the host's clock); stop releases its timer.
	CommandWait() (waited <-chan struct{}, stop func())
	// CommandContext is ctx bounded by that same wait, on the host's clock: the context
	// of a command's own I/O (a config edit, removing stored credentials).
	CommandContext(ctx context.Context) (context.Context, context.CancelFunc)
	// OAuth is the OAuth credential store and browser opener; nil when the host has none
	// (then no server can log in or out).
	OAuth() *remote.OAuth
	// Note shows a note to the user (a command's late outcome).
	Note(level, text string)
	// Questions are the servers' questions waiting for /mcp answer|accept|decline|cancel.
	Questions() *interact.Questions
	// OpenURL opens a URL a question asked the user to open, in the user's browser.
	OpenURL(ctx context.Context, url string) error

	// The handlers below still live with the state they change.

	// Approve stores the user's approval of the named project servers as their entries
	// are now, and of the named servers' tools as cached now (global servers with
	// "pinTools": true: only that), and lets them run; list are the usable ones whose
	// tools must still be listed (their fresh cached tools are offered at once).
	Approve(ctx context.Context, names []string) (list []string, err error)
	// Revoke withdraws approvals (which nil: every approval of the project) and stops and
	// hides the named servers; removed are the approvals that existed.
	Revoke(ctx context.Context, names, which []string) (removed []string, err error)
	// InZot: a zot host is attached (not the CLI), so work can go on in the background.
	InZot() bool
	// ListLater lists the servers' tools in the background and reports by note.
	ListLater(names []string)
	// Prompts are a server's prompts as last listed (nil when never listed).
	Prompts(server string) []cache.Prompt
	// GetPrompt runs prompts/get (starting the server if asleep) and returns the
	// prompt's messages as one text.
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error)
}

// Server is one configured server as the commands see it.
type Server interface {
	Config() *config.Server
	Status() Status
	// Pending: a project server without the user's approval (disabled ones included).
	Pending() bool
	// NeedsApproval: pending and enabled (what the dashboard flags).
	NeedsApproval() bool
	// ApprovalErr is the answer to anything that would start a pending server.
	ApprovalErr() error
	// RunsText says what the entry runs or contacts, never an expanded value.
	RunsText() string
	// CommandLine is the stdio command line with credentials masked; URL the remote URL
	// as written, without credentials or query.
	CommandLine() string
	URL() string
	// OAuthDetail is the server's OAuth state for /mcp <server> ("" when it has none).
	OAuthDetail() string
	// SkippedText names the tools the last listing could not offer ("" when none).
	SkippedText() string
	// Redact masks the server's secrets in a line it wrote.
	Redact(line string) string
	// Start starts the server (clearing backoff and parking); its error is worded for
	// the user. Stop stops it; the next call wakes it again.
	Start(ctx context.Context) error
	Stop(ctx context.Context)

	// For /mcp login and logout (login.go).

	// Remote is the server's HTTP side (its OAuth login in progress); nil for a stdio
	// server.
	Remote() *remote.Server
	// Log is the server's logger.
	Log() zerolog.Logger
	// AuthError is an authentication failure of the server worded by format (prefixed
	// with the server's name and redacted); ConfigError says the server cannot be used
	// as configured.
	AuthError(format string, args ...any) error
	ConfigError(format string, args ...any) error
	// RemoteErr words a failure of the server's HTTP side as the server's error (other
	// errors pass unchanged).
	RemoteErr(err error) error
	// LoggedIn clears the server's "needs login" mark after saved credentials.
	LoggedIn()
}

// State is a server's lifecycle state, by the word the dashboard shows.
type State string

// States.
const (
	StateAsleep   State = "asleep"
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateStopping State = "stopping"
	StateBackoff  State = "backing off"
	StateParked   State = "parked"
	StateDisabled State = "disabled"
)

// String is the state's word.
func (s State) String() string { return string(s) }

// Status is a server's state as the commands show it.
type Status struct {
	State State
	// Tools seen on the last successful list (0 if never listed this session).
	Tools     int
	LastUsed  time.Time
	LastError string
	// Stderr is the tail of the last stdio process's stderr, out of StderrSeen lines.
	Stderr     []string
	StderrSeen int
	// NeedsLogin: the server wants an OAuth login.
	NeedsLogin bool
	// Failures counts the failed starts or runs since the last success.
	Failures int
	// Protocol is the MCP revision the server spoke last, in this process or (from the
	// cache) an earlier one; "" before it was ever negotiated.
	Protocol string
}

// word is the state as the dashboard and the details show it: a server whose last start
// failed is "failed", not "asleep", even though the next call tries again.
func (st Status) word(c *config.Server, pending bool) string {
	switch {
	case pending:
		return "needs approval"
	case st.State == StateDisabled && c.Err != "":
		return "config error"
	case st.NeedsLogin && st.State != StateDisabled:
		return "needs login"
	case st.State == StateAsleep && st.Failures > 0:
		return "failed"
	}
	return st.State.String()
}

// RefreshSummary is the outcome of Host.Refresh.
type RefreshSummary struct {
	Listed  int      // servers listed
	Changed []string // servers whose cached tools changed
	Failed  []string // one text per failed server, naming it
	// SaveErr, when not "", says that the cache could not be written, and what to do.
	SaveErr string
	// ToolChanges says how each listed server's tools changed, by server (held back when
	// they differ from the approved ones).
	ToolChanges []ToolChange
}

// CapFirst upper-cases the first letter of a sentence built from a verb phrase.
func CapFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
