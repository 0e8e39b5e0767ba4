package interact

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Progress gives every tool call a progress token and turns the server's
// notifications/progress for it into one note that is replaced as the call advances and
// removed when it ends.
type Progress struct {
	notes *NoteBoard

	mu    sync.Mutex
	seq   uint64
	calls map[string]progressCall // by token
}

type progressCall struct {
	server, tool string
	// sink, when set, receives the call's progress instead of the note board (a front
	// end that relays it to its own client).
	sink func(mcp.ProgressNotificationParams)
}

type progressKey struct{}

// NewProgress returns a tracker that shows its notes on notes.
func NewProgress(notes *NoteBoard) *Progress {
	return &Progress{notes: notes, calls: map[string]progressCall{}}
}

// BeginFunc registers a call to server/tool and returns the context that carries its
// token (see ProgressMeta) and the function that ends it, which takes its note away. The
// call's progress is handed to sink instead of shown as a note (nil sink: shown). sink is called with the server's notification as it came, its
// message sanitized, and never after the returned function ran.
func (p *Progress) BeginFunc(ctx context.Context, server, tool string, sink func(mcp.ProgressNotificationParams)) (context.Context, func()) {
	p.mu.Lock()
	p.seq++
	token := "mcp-bridge-" + strconv.FormatUint(p.seq, 10)
	p.calls[token] = progressCall{server: server, tool: tool, sink: sink}
	p.mu.Unlock()
	return context.WithValue(ctx, progressKey{}, token), func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.calls, token)
		p.notes.ClearLive(token)
	}
}

// ProgressMeta is the request _meta of the call ctx belongs to: its progress token, and
// the log level a front end's client asked for (WithLogLevel); nil when it has neither.
func ProgressMeta(ctx context.Context) *mcp.Meta {
	token, tracked := ctx.Value(progressKey{}).(string)
	level, _ := ctx.Value(logLevelKey{}).(mcp.LoggingLevel)
	if !tracked && level == "" {
		return nil
	}
	m := &mcp.Meta{}
	if tracked {
		m.ProgressToken = token
	}
	if level != "" {
		// A 2026-07-28 server sends a request's log messages only when the request
		// names a level; a 2025-11-25 server ignores the key.
		m.SetLogLevel(level)
	}
	return m
}

type logLevelKey struct{}

// WithLogLevel makes the calls of ctx ask their server for log messages at level and
// above (a front end relays them to its client; "": none asked for).
func WithLogLevel(ctx context.Context, level mcp.LoggingLevel) context.Context {
	if level == "" {
		return ctx
	}
	return context.WithValue(ctx, logLevelKey{}, level)
}

// Update shows the progress a server reported for one of its calls. Tokens of calls that
// ended, or that belong to another server, are ignored.
func (p *Progress) Update(server string, n mcp.ProgressNotificationParams) {
	token, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	// Under the lock, so a call that ends meanwhile cannot get its note back.
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.calls[token]
	if !ok || c.server != server {
		return
	}
	if c.sink != nil {
		n.Message = safetext.Sanitize(n.Message)
		c.sink(n)
		return
	}
	p.notes.SetLive(token, "info", progressText(c, n))
}

// progressText is one line: "server tool: message 40%", the server's message sanitized.
func progressText(c progressCall, n mcp.ProgressNotificationParams) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s:", c.server, c.tool)
	if m := strings.TrimSpace(safetext.Sanitize(n.Message)); m != "" {
		sb.WriteString(" " + textcut.Truncate(strings.Join(strings.Fields(m), " "), 200))
	}
	switch {
	case n.Total > 0:
		pct := int(n.Progress / n.Total * 100)
		pct = min(max(pct, 0), 100)
		fmt.Fprintf(&sb, " %d%%", pct)
	default:
		fmt.Fprintf(&sb, " %s done", strconv.FormatFloat(n.Progress, 'f', -1, 64))
	}
	return sb.String()
}
