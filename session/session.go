// Package session is the bridge's seam to one MCP server: a Session is one initialized
// connection (a stdio process, a server in this process behind the same stdio framing
// over a pipe, HTTP, or an in-process mcp-go server) with the requests the bridge makes,
// all through one wrapper, and a done signal that says why it ended. The server state
// machine knows only this interface, so its tests run against in-process sessions on a
// fake clock.
//
// Every implementation is built on mcp-go's client and transports; nothing here speaks
// JSON-RPC by hand. Cancelling a request's context is how a request is cancelled: mcp-go
// then sends notifications/cancelled to the server.
package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
)

// Session is one initialized MCP connection.
//
// The contract, the same over every transport (stdio, streamable HTTP and SSE,
// in-process), because every request method goes through one wrapper (Client.request):
//   - Every method is safe to call from any number of goroutines at once, during and
//     after the session's end; Close may race any of them and itself.
//   - Once Done is closed, every request (ListTools, CallTool, the lists, ReadResource,
//     GetPrompt, Ping, Request, TaskResult, CancelTask) fails at once, without being
//     sent, with an *EndedError whose End is End() and whose Err is ErrEnded.
//   - A request in flight when the session ends is cancelled and fails with an
//     *EndedError too, whatever the transport's own error was, unless its own ctx ended
//     first (then it fails with ctx's error, or an *EndedError when the end is already
//     known: the end explains better than a timeout).
//   - Any other failure is the server's JSON-RPC error, an *Error the connector
//     classified (its Kind, the same set for every transport), or an *UnreadableError.
//     KindOf says which kind any of them is.
//   - Done is closed exactly once; End is valid once it is, and the first reason wins.
//
// A transport supplies only how it tells that a failed request means the session ended
// (Link.Lost), its end signal (Client.Finish), and, for HTTP, what it does around each
// request (Link.Around: session recovery, classification).
type Session interface {
	// Info is what the server said in initialize.
	Info() Info
	// ListTools lists every tool (following pagination), decoding each one alone so one
	// malformed tool cannot fail the listing; skipped says which were left out and why.
	ListTools(ctx context.Context) (tools []mcp.Tool, skipped []SkippedTool, err error)
	CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error)
	ListResources(ctx context.Context) ([]mcp.Resource, error)
	ListResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error)
	ListPrompts(ctx context.Context) ([]mcp.Prompt, error)
	ReadResource(ctx context.Context, req mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error)
	GetPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error)
	// Ping asks the server whether it is there.
	Ping(ctx context.Context) error
	// Request sends any other request (tasks) through the transport and returns the raw
	// answer, for results mcp-go's typed API cannot take (a CreateTaskResult).
	Request(ctx context.Context, method string, params any) (*transport.JSONRPCResponse, error)
	TaskResult(ctx context.Context, req mcp.TaskResultRequest) (*mcp.TaskResultResult, error)
	CancelTask(ctx context.Context, req mcp.CancelTaskRequest) error
	// Close ends the session (and a stdio server's process tree) within ctx; End then
	// says CauseClosed unless the session had already ended otherwise.
	Close(ctx context.Context) error
	// Done is closed when the session has ended, for whatever reason.
	Done() <-chan struct{}
	// End says why the session ended; valid once Done is closed.
	End() End
}

// Info is what initialize (or server/discover) told us about the server.
type Info struct {
	Transport    config.Transport
	ServerName   string
	Instructions string
	Capabilities mcp.ServerCapabilities
	// Protocol is the MCP revision the connection speaks ("2026-07-28": the modern
	// era; "2025-11-25" or earlier: the legacy one).
	Protocol string
	// ProtocolGuessed: the legacy era was taken only because the probe went unanswered
	// within its deadline, which a server slow to start does too; the revision is spoken
	// but not remembered, so the next wake probes again.
	ProtocolGuessed bool
	// Tasks: the connection speaks the tasks extension (SEP-2663): a 2026-07-28 server
	// that announced it, to which every request declares it.
	Tasks bool
}

// Cause is why a session ended.
type Cause int

// The causes.
const (
	CauseClosed Cause = iota + 1 // we closed it (stop, idle sleep, shutdown)
	CauseExited                  // the server process exited on its own
	CauseLost                    // the transport broke (a dropped stream, an over-size reply)
)

// End is why a session ended.
type End struct {
	Cause Cause
	// Status says how a process ended ("exited: exit status 3"), without its stderr:
	// what the model may read.
	Status string
	// Stderr is the process's last stderr lines (for the user only: servers print
	// tokens there).
	Stderr string
	// Err is what broke the transport (CauseLost), e.g. ErrReplyTooLarge.
	Err error
}

func (e End) String() string {
	switch e.Cause {
	case CauseClosed:
		return "closed"
	case CauseExited:
		return "process " + e.Status
	case CauseLost:
		if e.Err != nil {
			return "transport lost: " + e.Err.Error()
		}
		return "transport lost"
	}
	return "running"
}

// EndedError is a request that failed because its session ended under it.
type EndedError struct {
	End End
	Err error // the request's own error
}

func (e *EndedError) Error() string { return fmt.Sprintf("%v (session %s)", e.Err, e.End) }
func (e *EndedError) Unwrap() error { return e.Err }

// ErrReplyTooLarge ends a session whose over-size reply could not be matched to a
// request: the stream is unusable after it.
var ErrReplyTooLarge = errors.New("a reply over the size limit without an id ended the stream")

// Handlers is what the bridge installs on every connection it opens.
type Handlers struct {
	// Init is the initialize request (its protocol version is the Era's to set); its
	// client info and capabilities go in the _meta of every modern request too.
	Init mcp.InitializeRequest
	// Era decides the revision spoken (era.go).
	Era Era
	// Options are mcp-go client options (roots, elicitation, capabilities).
	Options []client.ClientOption
	// Wrap wraps the transport before mcp-go sees it, inside the transport's own
	// wrappers; nil: none.
	Wrap func(transport.Interface) transport.Interface
	// OnNotification receives every server notification; nil: none.
	OnNotification func(mcp.JSONRPCNotification)
	// Tool gives the bridge's definition of a tool by its MCP name, from which a
	// tools/call on a modern HTTP connection mirrors the x-mcp-header annotated
	// arguments into Mcp-Param-* headers; nil: none are mirrored.
	Tool func(name string) (mcp.Tool, bool)
	// Input answers what a server asks for in its results (SEP-2322) on every request of
	// the session (rounds.go); with a sampler (Inputs.Sample) it also answers a legacy
	// server's own sampling requests, and the session advertises sampling.
	Input Inputs
}

// SkippedTool is a listed tool the bridge cannot offer, and why.
type SkippedTool struct {
	Name   string // the tool's name, or "#<index>" when it has none
	Reason string
}
