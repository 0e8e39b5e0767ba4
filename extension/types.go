// Package extension speaks the zot extension wire protocol: typed NDJSON
// frames exchanged with the zot host over the extension's stdin (host to
// extension) and stdout (extension to host).
//
// Run performs the handshake (hello, hello_ack), lets a Handler register its
// tools and commands, sends ready, and then serves tool_call and
// command_invoked frames concurrently until the host sends shutdown, closes
// stdin, or the context ends. The package knows nothing about what the tools
// do; it only frames, routes and bounds the traffic.
package extension

import (
	"context"
	"encoding/json"

	"github.com/rs/zerolog"
)

// MaxLine is the host's line cap in both directions: a frame including its
// terminating '\n' must be shorter than MaxLine bytes. Run never writes a
// longer line and discards longer lines it reads.
const MaxLine = 4 << 20

// Generation is the host generation as far as the extension can tell from
// hello_ack.
type Generation int

const (
	// GenLegacy is a host whose hello_ack has no capabilities field: an OLD
	// or MID host (the two cannot be told apart from the handshake).
	GenLegacy Generation = iota
	// GenNew is a host whose hello_ack carries a capabilities field (even an
	// empty one).
	GenNew
)

// String returns a human-readable name of the generation.
func (g Generation) String() string {
	switch g {
	case GenLegacy:
		return "legacy (OLD or MID)"
	case GenNew:
		return "new"
	default:
		return "unknown"
	}
}

// HostInfo is what the host told the extension in hello_ack.
type HostInfo struct {
	// ProtocolVersion is hello_ack.protocol_version (1 for every known host; 0 when
	// absent or not a number).
	ProtocolVersion int
	// Capabilities is hello_ack.capabilities (nil when absent).
	Capabilities []string
	// CapabilitiesPresent reports whether hello_ack had a capabilities key
	// with a non-null value; an empty array counts as present.
	CapabilitiesPresent bool
	// ZotVersion is the host's version string (not a reliable feature signal).
	ZotVersion string
	// Provider and Model identify the active model.
	Provider, Model string
	// Cwd is the user's project directory (the extension's own working
	// directory is its extension directory, not the project).
	Cwd string
	// ExtensionDir is the absolute extension directory.
	ExtensionDir string
	// DataDir is the directory intended for the extension's state.
	DataDir string
}

// Generation derives the host generation from the presence of capabilities.
func (h HostInfo) Generation() Generation {
	if h.CapabilitiesPresent {
		return GenNew
	}
	return GenLegacy
}

// Tool describes one tool to register with the host.
type Tool struct {
	// Name is the tool name the model calls.
	Name string
	// Description is shown to the model.
	Description string
	// DescriptionSuffix follows Description in what is sent (a tool's annotation hints):
	// the encoder appends both, so a caller need not join them into a new string first.
	DescriptionSuffix string
	// Schema is the JSON Schema of the arguments. Empty means an object
	// schema without properties (strict providers reject a null schema).
	Schema json.RawMessage
	// Deferred hides the tool until a result activates it (MID and NEW hosts;
	// OLD hosts advertise it eagerly). Omitted when false.
	Deferred bool
	// Interactive marks a tool that waits for user input (NEW hosts only).
	// Omitted when false.
	Interactive bool
	// OutputSchema is the JSON Schema of StructuredContent (NEW hosts only).
	// Omitted when empty.
	OutputSchema json.RawMessage
	// Namespace is the tool's discovery group (NEW hosts only; others ignore it). Each of
	// its fields is omitted when empty.
	Namespace Namespace
}

// Namespace is the group a NEW host files a tool under for discovery: its codemode's
// searchTools and describeNamespace, and BM25 over each tool's text, which includes its
// namespace's description and instructions. Without one the host uses the extension's
// name. The host reads a namespace's text from each tool's frame, so every tool of the
// namespace carries it.
type Namespace struct {
	// Name is the namespace (register_tool's namespace).
	Name string
	// Description says what the namespace's tools are for (namespace_description).
	Description string
	// Instructions say how to use them (namespace_instructions).
	Instructions string
}

// Content is one content block of a tool result.
type Content struct {
	// Type is "text" or "image".
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// MimeType is the media type of an image block.
	MimeType string `json:"mime_type,omitempty"`
	// Data is the base64-encoded payload of an image block.
	Data string `json:"data,omitempty"`
}

// ToolCall is one tool_call frame from the host.
type ToolCall struct {
	// ID correlates the call with its result.
	ID string
	// Name is the registered tool name.
	Name string
	// Args is the JSON arguments object ({} when the host sent none).
	Args json.RawMessage
}

// ToolResult is a handler's answer to a ToolCall.
type ToolResult struct {
	// Content is the result shown to the model; nil is sent as [].
	Content []Content
	// IsError marks a failed call.
	IsError bool
	// ActivateTools names deferred tools to reveal to the model.
	ActivateTools []string
	// StructuredContent is the JSON result for tools with an OutputSchema;
	// it is only sent to GenNew hosts.
	StructuredContent json.RawMessage
}

// Command is one command_invoked frame from the host.
type Command struct {
	// ID correlates the invocation with its response.
	ID string
	// Name is the canonical registered command name.
	Name string
	// Args is everything after the command name, trimmed.
	Args string
	// Width is how many columns a line of a display answer has on the host's screen
	// (the terminal's width less the tag the host puts before it); 0 when there is no
	// Screen. A longer line is wrapped before it is sent.
	Width int
}

// Panel is a panel specification for the open_panel action.
type Panel struct {
	// ID identifies the panel in later panel_* frames.
	ID string
	// Title is shown above the panel.
	Title string
	// Lines are the panel's rows (nil is sent as []).
	Lines []string
	// Footer is shown below the panel.
	Footer string
}

// CommandResponse is a handler's answer to a Command.
type CommandResponse struct {
	// Action is one of prompt, insert, display, open_panel or noop; empty
	// means noop.
	Action string
	// Prompt is the text submitted to the model for the prompt action.
	Prompt string
	// Insert is the text put into the input box for the insert action.
	Insert string
	// Display is the text shown for the display action.
	Display string
	// Panel is the panel opened by the open_panel action.
	Panel *Panel
	// Error, if non-empty, is shown as an error line whatever the action.
	Error string
}

// Handler implements an extension's behaviour. Its methods are called from
// goroutines owned by Run, possibly concurrently.
type Handler interface {
	// Setup runs right after hello_ack. It registers tools and commands
	// through s and must return fast (the host drops registrations after
	// about 250 ms of silence). Run sends ready when Setup returns, also when
	// it returns an error (which is logged).
	Setup(ctx context.Context, s *Session) error
	// CallTool serves one tool_call. ctx is cancelled on tool_cancel for
	// that id, and on shutdown or stdin EOF. If ctx was cancelled by
	// tool_cancel the result is dropped (no frame is written).
	CallTool(ctx context.Context, call ToolCall) ToolResult
	// RunCommand serves one command_invoked; the host waits at most 30 s for
	// the answer, and ctx carries that deadline.
	RunCommand(ctx context.Context, cmd Command) CommandResponse
}

// Options configures Run.
type Options struct {
	// Name and Version are sent in hello (informational for the host).
	Name, Version string
	// Capabilities are sent in hello; nil means DefaultCapabilities.
	Capabilities []string
	// Log receives diagnostics (malformed frames, dropped frames, handler
	// panics). The zero Logger discards everything.
	Log zerolog.Logger
	// ServeProcs, when positive, is the GOMAXPROCS of the whole process from
	// the first tool call after ready until Run returns (then the previous
	// value is restored). Startup, and the work a handler does in the
	// background right after it, can use every core; serving calls, one
	// goroutine hands each frame to the next, and with a single P the woken
	// goroutine runs on the same thread instead of waking another one.
	ServeProcs int
	// Screen, when set, is the terminal an interactive host draws on: notes and
	// display answers are laid out for it and notes wait until they can be shown
	// (see Screen). Name must then be the manifest's name, the tag the host puts
	// before each line of a note.
	Screen *Screen
}

// DefaultCapabilities returns the capabilities sent in hello when
// Options.Capabilities is nil.
func DefaultCapabilities() []string {
	return []string{"tools", "commands", "tool_cancel"}
}
