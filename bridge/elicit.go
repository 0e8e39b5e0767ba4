package bridge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
)

// elicitMargin ends an unanswered question this long before the call's budget, so the
// server can answer our cancel and the call still reports before the host's deadline.
const elicitMargin = 3 * time.Second

// Elicitor answers servers' questions where there is no zot host to ask (the CLI). The
// bridge has already validated a url-mode URL; form answers should be built with
// Elicitation.Answer, which validates them.
type Elicitor interface {
	// Modes says which elicitation modes it handles; exactly these are advertised.
	Modes() (form, url bool)
	Elicit(ctx context.Context, q *interact.Elicitation) (*mcp.ElicitationResult, error)
}

// elicitations is the bridge's registry of open questions and of the calls they may
// belong to. The zero value is ready to use.
type elicitations struct {
	mu     sync.Mutex
	next   int
	open   map[int]*openQuestion
	calls  map[string]map[*callWatch]bool // by server
	elicit Elicitor                       // nil: ask through the zot host
}

// openQuestion is a question waiting for /mcp answer|accept|decline|cancel.
type openQuestion struct {
	q      *interact.Elicitation
	answer chan *mcp.ElicitationResult // buffered 1; the first answer wins
	calls  []*callWatch
}

// callWatch follows one tool call of a server while it runs, so a question asked during
// it shares its budget, and the call can say what went unanswered.
type callWatch struct {
	server   string
	deadline time.Time // on the injected clock
	done     <-chan struct{}

	mu      sync.Mutex
	expired []*interact.Elicitation // questions that ran out of time during the call
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
// handler and advertise exactly the modes it handles.
func (s *Server) elicitOptions() []client.ClientOption {
	b := s.d.bridge
	if b == nil {
		return nil
	}
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
		client.WithElicitationHandler(elicitHandler{b: b, server: s.cfg.Name}),
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

func elicitResult(action mcp.ElicitationResponseAction, content any) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}
}

// elicit answers one elicitation/create of a server: through the Elicitor when one is set,
// otherwise with a note in zot and the user's /mcp answer, within the budget of the calls
// the server is serving.
func (b *Bridge) elicit(ctx context.Context, server string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	r := &b.elicits
	q, err := interact.NewElicitation(server, p, b.deps.oauth.checkElicitURL)
	if err != nil {
		b.opts.Log.Warn().Str("server", server).Err(err).Msg("elicitation request refused")
		b.note("warn", fmt.Sprintf("MCP server %q asked a question the bridge cannot show (%v); it was declined.", server, err))
		return elicitResult(mcp.ElicitationResponseActionDecline, nil), nil
	}
	r.mu.Lock()
	e := r.elicit
	r.mu.Unlock()
	if e != nil {
		return e.Elicit(ctx, q)
	}
	if b.sess.Load() == nil {
		return elicitResult(mcp.ElicitationResponseActionDecline, nil), nil
	}
	oq, deadline := r.add(q, b.opts.Clock.Now().Add(b.opts.CallBudget))
	defer r.remove(q.N)
	// The timer exists before the note: whoever reads the note may already advance time.
	expired := make(chan struct{})
	t := b.opts.Clock.AfterFunc(deadline.Sub(b.opts.Clock.Now()), func() { close(expired) })
	defer t.Stop()
	b.opts.Log.Info().Str("server", server).Int("request", q.N).Str("mode", q.Mode).Msg("elicitation request shown to the user")
	key := "elicit:" + strconv.Itoa(q.N)
	b.x.notes.Pin(key, "warn", q.NoteText())
	defer b.x.notes.Unpin(key)
	var callDone <-chan struct{}
	if len(oq.calls) > 0 {
		callDone = oq.calls[0].done
	}
	select {
	case res := <-oq.answer:
		return res, nil
	case <-expired:
		for _, c := range oq.calls {
			c.mu.Lock()
			c.expired = append(c.expired, q)
			c.mu.Unlock()
		}
		b.note("warn", fmt.Sprintf("MCP request %d from %q expired: no answer within the call's time. The call was told you cancelled.", q.N, server))
		return elicitResult(mcp.ElicitationResponseActionCancel, nil), nil
	case <-callDone:
		return elicitResult(mcp.ElicitationResponseActionCancel, nil), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// add numbers and registers a question, attaching it to the server's running calls. Its
// deadline is the earliest of theirs (less the margin), or fallback without a call.
func (r *elicitations) add(q *interact.Elicitation, fallback time.Time) (*openQuestion, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	q.N = r.next
	oq := &openQuestion{q: q, answer: make(chan *mcp.ElicitationResult, 1)}
	deadline := fallback
	for c := range r.calls[q.Server] {
		oq.calls = append(oq.calls, c)
	}
	sort.Slice(oq.calls, func(i, j int) bool { return oq.calls[i].deadline.Before(oq.calls[j].deadline) })
	if len(oq.calls) > 0 {
		deadline = oq.calls[0].deadline
	}
	if r.open == nil {
		r.open = map[int]*openQuestion{}
	}
	r.open[q.N] = oq
	return oq, deadline.Add(-elicitMargin)
}

func (r *elicitations) remove(n int) {
	r.mu.Lock()
	delete(r.open, n)
	r.mu.Unlock()
}

// watch follows a call of server with the given budget until the returned func is
// called.
func (r *elicitations) watch(ctx context.Context, server string, deadline time.Time) (*callWatch, func()) {
	c := &callWatch{server: server, deadline: deadline, done: ctx.Done()}
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]map[*callWatch]bool{}
	}
	if r.calls[server] == nil {
		r.calls[server] = map[*callWatch]bool{}
	}
	r.calls[server][c] = true
	r.mu.Unlock()
	return c, func() {
		r.mu.Lock()
		delete(r.calls[server], c)
		r.mu.Unlock()
	}
}

// expiredText explains questions that ran out of time during the call: what was asked
// and how to answer next time; "" when there were none.
func (c *callWatch) expiredText(tool string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.expired) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, q := range c.expired {
		fmt.Fprintf(&sb, "MCP server %q asked the user a question during %s and nobody answered before the call's time ran out, so the bridge cancelled it. The question (request %d): %s",
			q.Server, tool, q.N, firstNonEmpty(q.Message, "(no message)"))
		if q.Mode == mcp.ElicitationModeURL {
			fmt.Fprintf(&sb, " (open %s)", q.URL)
		} else if len(q.Fields) > 0 {
			sb.WriteString(" Fields: " + strings.Join(q.FieldNames(), ", ") + ".")
		}
		sb.WriteString(" Next time the user must answer the note while the call runs: /mcp answer <n> field=value …, /mcp accept <n> (defaults or open the URL), /mcp decline <n> or /mcp cancel <n>. Ask the user before calling the tool again.\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// elicitCommand serves /mcp answer|accept|decline|cancel <n> ….
func (b *Bridge) elicitCommand(ctx context.Context, sub string, args []string) (string, error) {
	r := &b.elicits
	usage := fmt.Sprintf("usage: /mcp %s <n>", sub)
	if sub == "answer" {
		usage = "usage: /mcp answer <n> field=value … (quote values with spaces: name=\"Ada Lovelace\")"
	}
	if len(args) == 0 {
		return "", fmt.Errorf("%s; open requests: %s", usage, r.openList())
	}
	n, err := strconv.Atoi(strings.TrimPrefix(args[0], "#"))
	r.mu.Lock()
	oq := r.open[n]
	r.mu.Unlock()
	if err != nil || oq == nil {
		return "", fmt.Errorf("no open MCP request %q (it may have been answered or expired); open requests: %s", args[0], r.openList())
	}
	q := oq.q
	var res *mcp.ElicitationResult
	var done string
	switch sub {
	case "decline":
		res, done = elicitResult(mcp.ElicitationResponseActionDecline, nil), "Declined"
	case "cancel":
		res, done = elicitResult(mcp.ElicitationResponseActionCancel, nil), "Cancelled"
	case "accept", "answer":
		if q.Mode == mcp.ElicitationModeURL {
			if sub == "answer" {
				return "", fmt.Errorf("request %d asks you to open a URL, not to fill in fields: /mcp accept %d opens it", n, n)
			}
			if err := b.deps.oauth.openURL(ctx, q.URL); err != nil {
				return "", fmt.Errorf("could not open a browser (%v); open %s yourself, then run /mcp accept %d again, or /mcp decline %d", err, q.URL, n, n)
			}
			res, done = elicitResult(mcp.ElicitationResponseActionAccept, nil), "Opened "+q.URL+" and told"
			break
		}
		values := map[string]string{}
		if sub == "answer" {
			if values, err = parseAssignments(strings.Join(args[1:], " "), q); err != nil {
				return "", fmt.Errorf("%v; %s", err, usage)
			}
		}
		content, err := q.Answer(values)
		if err != nil {
			return "", fmt.Errorf("request %d not answered: %v. Fix it and answer again", n, err)
		}
		res, done = elicitResult(mcp.ElicitationResponseActionAccept, content), "Sent your answer to"
	}
	select {
	case oq.answer <- res:
	default:
		return "", fmt.Errorf("request %d was already answered", n)
	}
	return fmt.Sprintf("%s MCP server %q (request %d).", done, q.Server, n), nil
}

func (r *elicitations) openList() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return "none"
	}
	var parts []string
	for n, oq := range r.open {
		parts = append(parts, fmt.Sprintf("%d (%s)", n, oq.q.Server))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// parseAssignments reads `field=value …`. A value runs until the next word that starts
// with a known field name and "=", so `name=Ada Lovelace` needs no quotes; quotes keep
// spaces inside a word (splitQuoted, shared with /mcp prompt).
func parseAssignments(line string, q *interact.Elicitation) (map[string]string, error) {
	words, err := commands.SplitQuoted(line)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	last := ""
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if ok {
			if _, known := q.Field(k); known || last == "" {
				out[k] = v
				last = k
				continue
			}
		}
		if last == "" {
			return nil, fmt.Errorf("%q is not field=value", w)
		}
		out[last] += " " + w
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no field=value given")
	}
	return out, nil
}

// urlRequired turns a server's "URL elicitation required" error (-32042: the call cannot
// run before the user completes a flow in the browser) into a note for the user and an
// error for the model. Only URLs that pass checkElicitURL are shown; none is opened, since
// nobody accepted anything.
func (b *Bridge) urlRequired(server, tool string, err error) (extension.ToolResult, bool) {
	var req mcp.URLElicitationRequiredError
	if !errors.As(err, &req) {
		return extension.ToolResult{}, false
	}
	var lines []string
	for _, p := range req.Elicitations {
		if b.deps.oauth.checkElicitURL(p.URL) != nil {
			lines = append(lines, fmt.Sprintf("  (a URL the bridge will not show: %v)", errElicitURL))
			continue
		}
		lines = append(lines, fmt.Sprintf("  %s — %s", p.URL, firstNonEmpty(strings.TrimSpace(p.Message), "no reason given")))
	}
	list := strings.Join(lines, "\n")
	b.note("warn", fmt.Sprintf("MCP server %q needs you to finish this in your browser before %s can run:\n%s\nOpen it yourself, then ask for the call again.", server, tool, list))
	return ErrorResult("MCP server %q needs the user to complete a step in the browser before %s can run:\n%s\nTell the user to open it; call the tool again once they have finished.", server, tool, list), true
}

// errElicitURL is what is said about a URL the bridge will not show or open.
var errElicitURL = errors.New("the URL is not a plain https (or loopback http) URL with a host and no user name or password")

// checkElicitURL accepts what may be shown to the user and opened in a browser: the
// OAuth check (https or loopback http, a host, no user info, no quoting characters).
func (e *oauthEnv) checkElicitURL(raw string) error {
	if e.checkBrowserURL(raw) != nil {
		return errElicitURL
	}
	return nil
}
