package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// SetElicitor makes e answer servers' questions instead of the zot host (the CLI). Call it
// before the first server starts: a connection advertises the modes of its time.
func (b *Bridge) SetElicitor(e interact.Elicitor) { b.elicits.SetElicitor(e) }

// elicitOptions are the mcp-go client options that install the bridge's elicitation
// handler for server and advertise exactly the modes it handles.
func (b *Bridge) elicitOptions(server string) []client.ClientOption {
	return b.elicits.ClientOptions(elicitHandler{b: b, server: server})
}

type elicitHandler struct {
	b      *Bridge
	server string
}

// Elicit answers one elicitation/create of the server (interact.Asker.Ask).
func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	b := h.b
	if f := b.opts.Front; f != nil {
		return frontElicit(ctx, f, h.server, req.Params, b.remote.OAuth.CheckElicitURL)
	}
	return b.elicits.Ask(ctx, interact.AskEnv{Clock: b.opts.Clock, Budget: b.opts.CallBudget, Log: b.opts.Log,
		Notes: b.x.notes, Note: b.note, Hosted: b.sess.Load() != nil, CheckURL: b.remote.OAuth.CheckElicitURL}, h.server, req.Params)
}

// A "URL elicitation required" error is the server's text of any size: what of it the
// note and the model's error show is bounded.
const (
	maxURLSteps     = 4    // URLs listed
	maxURLStepBytes = 2048 // a longer URL is not shown (a cut one would not open)
	maxURLReason    = 300  // bytes of each reason
)

// urlRequired turns a server's "URL elicitation required" error (-32042: the call cannot
// run before the user completes a flow in the browser) into a note for the user and an
// error for the model. Only URLs that pass CheckElicitURL are shown; none is opened, since
// nobody accepted anything.
func (b *Bridge) urlRequired(server, tool string, err error) (extension.ToolResult, bool) {
	var req mcp.URLElicitationRequiredError
	if !errors.As(err, &req) {
		return extension.ToolResult{}, false
	}
	var lines []string
	for _, p := range req.Elicitations[:min(len(req.Elicitations), maxURLSteps)] {
		// The reasons and URLs are the server's text, shown to the user and the model
		// as a question's are.
		if len(p.URL) > maxURLStepBytes {
			lines = append(lines, fmt.Sprintf("  (a URL the bridge will not show: it is %d bytes long, over %d)", len(p.URL), maxURLStepBytes))
			continue
		}
		if err := interact.CheckURL(p.URL, b.remote.OAuth.CheckElicitURL); err != nil {
			lines = append(lines, fmt.Sprintf("  (a URL the bridge will not show: %v)", err))
			continue
		}
		reason := textcut.Truncate(strings.Join(strings.Fields(safetext.Sanitize(p.Message)), " "), maxURLReason)
		lines = append(lines, fmt.Sprintf("  %s — %s", p.URL, toolview.FirstNonEmpty(reason, "no reason given")))
	}
	if more := len(req.Elicitations) - maxURLSteps; more > 0 {
		lines = append(lines, fmt.Sprintf("  (and %d more the bridge does not list; finish these first)", more))
	}
	list := strings.Join(lines, "\n")
	b.note("warn", fmt.Sprintf("MCP server %q needs you to finish this in your browser before %s can run:\n%s\nOpen it yourself, then ask for the call again.", server, tool, list))
	return toolresult.Error("MCP server %q needs the user to complete a step in the browser before %s can run:\n%s\nTell the user to open it; call the tool again once they have finished.", server, tool, list), true
}

// frontElicit hands a server's question to a front end's client as the server asked it
// (the client shows it, and can show more of a schema than the bridge's forms): its
// message and the schema's strings sanitized, a url-mode URL checked as every URL the
// bridge shows is.
func frontElicit(ctx context.Context, f Front, server string, p mcp.ElicitationParams, checkURL func(string) error) (*mcp.ElicitationResult, error) {
	p.Message = safetext.Sanitize(p.Message)
	if p.Mode == mcp.ElicitationModeURL {
		if err := interact.CheckURL(p.URL, checkURL); err != nil {
			return nil, fmt.Errorf("the server's URL was not passed on: %w", err)
		}
	}
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("the server's requested schema cannot be encoded: %w", err)
		}
		p.RequestedSchema = json.RawMessage(safetext.SanitizeJSON(raw))
	}
	return f.Elicit(ctx, server, p)
}
