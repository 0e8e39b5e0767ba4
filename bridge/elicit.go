package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// Elicitor answers servers' questions where there is no zot host to ask (the CLI). The
// bridge has already validated a url-mode URL; form answers should be built with
// Elicitation.Answer, which validates them.
type Elicitor interface {
	// Modes says which elicitation modes it handles; exactly these are advertised.
	Modes() (form, url bool)
	Elicit(ctx context.Context, q *interact.Elicitation) (*mcp.ElicitationResult, error)
}

// elicitMargin ends an unanswered question this long before the call's budget.
const elicitMargin = interact.AnswerMargin

// elicitations is the bridge's registry of open questions, and the Elicitor that answers
// them where there is no zot host.
type elicitations struct {
	interact.Questions

	mu     sync.Mutex
	elicit Elicitor // nil: ask through the zot host
}

// SetElicitor makes e answer servers' questions instead of the zot host (the CLI). Call it
// before the first server starts: a connection advertises the modes of its time.
func (b *Bridge) SetElicitor(e Elicitor) {
	b.elicits.mu.Lock()
	b.elicits.elicit = e
	b.elicits.mu.Unlock()
}

// modes is what the bridge advertises: both modes in zot (a note, then /mcp accept opens
// the URL), otherwise what the Elicitor handles.
func (r *elicitations) modes() (form, url bool) {
	r.mu.Lock()
	e := r.elicit
	r.mu.Unlock()
	if e == nil {
		return true, true
	}
	return e.Modes()
}

// elicitOptions are the mcp-go client options that install the bridge's elicitation
// handler for server and advertise exactly the modes it handles.
func (b *Bridge) elicitOptions(server string) []client.ClientOption {
	form, url := b.elicits.modes()
	if !form && !url {
		return nil
	}
	caps := &mcp.ElicitationCapability{}
	if form {
		caps.Form = &struct{}{}
	}
	if url {
		caps.URL = &struct{}{}
	}
	return []client.ClientOption{
		client.WithElicitationHandler(elicitHandler{b: b, server: server}),
		// Only the elicitation member is set, so capabilities configured elsewhere stay.
		func(c *client.Client) {
			cc := c.GetClientCapabilities()
			cc.Elicitation = caps
			client.WithClientCapabilities(cc)(c)
		},
	}
}

type elicitHandler struct {
	b      *Bridge
	server string
}

func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return h.b.elicit(ctx, h.server, req.Params)
}

// elicit answers one elicitation/create of a server: through the Elicitor when one is set,
// otherwise with a note in zot and the user's /mcp answer, within the budget of the calls
// the server is serving.
func (b *Bridge) elicit(ctx context.Context, server string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	r := &b.elicits
	q, err := interact.NewElicitation(server, p, b.deps.Remote.OAuth.CheckElicitURL)
	if err != nil {
		b.opts.Log.Warn().Str("server", server).Err(err).Msg("elicitation request refused")
		b.note("warn", fmt.Sprintf("MCP server %q asked a question the bridge cannot show (%v); it was declined.", server, err))
		return interact.Result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	r.mu.Lock()
	e := r.elicit
	r.mu.Unlock()
	if e != nil {
		return e.Elicit(ctx, q)
	}
	if b.sess.Load() == nil {
		return interact.Result(mcp.ElicitationResponseActionDecline, nil), nil
	}
	oq, deadline := r.Add(q, b.opts.Clock.Now().Add(b.opts.CallBudget))
	defer r.Remove(q.N)
	// The timer exists before the note: whoever reads the note may already advance time.
	expired := make(chan struct{})
	t := b.opts.Clock.AfterFunc(deadline.Sub(b.opts.Clock.Now()), func() { close(expired) })
	defer t.Stop()
	b.opts.Log.Info().Str("server", server).Int("request", q.N).Str("mode", q.Mode).Msg("elicitation request shown to the user")
	key := "elicit:" + strconv.Itoa(q.N)
	b.x.notes.Pin(key, "warn", q.NoteText())
	defer b.x.notes.Unpin(key)
	select {
	case res := <-oq.Replies():
		return res, nil
	case <-expired:
		oq.Expire()
		b.note("warn", fmt.Sprintf("MCP request %d from %q expired: no answer within the call's time. The call was told you cancelled.", q.N, server))
		return interact.Result(mcp.ElicitationResponseActionCancel, nil), nil
	case <-oq.CallDone():
		return interact.Result(mcp.ElicitationResponseActionCancel, nil), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

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
	for _, p := range req.Elicitations {
		if b.deps.Remote.OAuth.CheckElicitURL(p.URL) != nil {
			lines = append(lines, fmt.Sprintf("  (a URL the bridge will not show: %v)", remote.ErrElicitURL))
			continue
		}
		lines = append(lines, fmt.Sprintf("  %s — %s", p.URL, firstNonEmpty(strings.TrimSpace(p.Message), "no reason given")))
	}
	list := strings.Join(lines, "\n")
	b.note("warn", fmt.Sprintf("MCP server %q needs you to finish this in your browser before %s can run:\n%s\nOpen it yourself, then ask for the call again.", server, tool, list))
	return toolresult.Error("MCP server %q needs the user to complete a step in the browser before %s can run:\n%s\nTell the user to open it; call the tool again once they have finished.", server, tool, list), true
}
