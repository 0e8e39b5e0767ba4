package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// termElicitor answers servers' questions in the terminal: it prompts on a TTY, takes the
// schema's defaults with --accept-defaults, and otherwise declines and says so.
type termElicitor struct {
	in             *bufio.Reader
	out            io.Writer // the prompts and what was decided go to stderr
	tty            bool
	acceptDefaults bool

	mu sync.Mutex // one question on the terminal at a time
}

// isInteractive reports whether f is a terminal someone can answer on: a character device
// other than the null device (which isTerminal also accepts).
func isInteractive(f *os.File) bool {
	if !isTerminal(f) {
		return false
	}
	st, err := f.Stat()
	null, nerr := os.Stat(os.DevNull)
	return err == nil && (nerr != nil || !os.SameFile(st, null))
}

func newTermElicitor(in io.Reader, tty bool, out io.Writer, acceptDefaults bool) *termElicitor {
	return &termElicitor{in: bufio.NewReader(in), out: out, tty: tty, acceptDefaults: acceptDefaults}
}

// Modes: both, everywhere. Off a terminal a URL is declined with a message, as a form is
// without --accept-defaults; advertising the same modes as zot keeps the tool list a
// refresh caches the same (servers such as the everything server list tools by mode).
func (t *termElicitor) Modes() (form, url bool) { return true, true }

func decision(a mcp.ElicitationResponseAction, content any) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: a, Content: content}}
}

// Elicit answers one question.
func (t *termElicitor) Elicit(ctx context.Context, q *interact.Elicitation) (*mcp.ElicitationResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if q.Mode == mcp.ElicitationModeURL {
		if !t.tty {
			fmt.Fprintf(t.out, "MCP server %q asked you to open %s (%s); declined: this call is not interactive.\n", q.Server, q.URL, q.Message)
			return decision(mcp.ElicitationResponseActionDecline, nil), nil
		}
		fmt.Fprintf(t.out, "MCP server %q asks you to open a URL: %s\n  %s\nOpen it in your browser and finish there, then press Enter (or type !decline or !cancel): ", q.Server, q.Message, q.URL)
		line, err := t.readLine(ctx)
		if err != nil {
			return nil, err
		}
		if a, ok := refusal(line); ok {
			return decision(a, nil), nil
		}
		return decision(mcp.ElicitationResponseActionAccept, nil), nil
	}
	if t.acceptDefaults {
		content, err := q.Answer(nil)
		if err != nil {
			fmt.Fprintf(t.out, "MCP server %q asked: %s — the defaults do not answer it (%v); declined.\n", q.Server, q.Message, err)
			return decision(mcp.ElicitationResponseActionDecline, nil), nil
		}
		fmt.Fprintf(t.out, "MCP server %q asked: %s — accepted the defaults (--accept-defaults).\n", q.Server, q.Message)
		return decision(mcp.ElicitationResponseActionAccept, content), nil
	}
	if !t.tty {
		fmt.Fprintf(t.out, "MCP server %q asked: %s (fields: %s); declined: this call is not interactive. Run it on a terminal to answer, or pass --accept-defaults to take the defaults.\n",
			q.Server, q.Message, fieldList(q))
		return decision(mcp.ElicitationResponseActionDecline, nil), nil
	}
	fmt.Fprintf(t.out, "MCP server %q asks: %s\n(Enter keeps the [default]; type !decline or !cancel to refuse.)\n", q.Server, q.Message)
	for {
		values := map[string]string{}
		for _, f := range q.Fields {
			fmt.Fprintf(t.out, "  %s", f.Summary())
			if d := safetext.Escape(f.DefaultText()); d != "" {
				fmt.Fprintf(t.out, " [%s]", d)
			}
			fmt.Fprint(t.out, ": ")
			line, err := t.readLine(ctx)
			if err != nil {
				return nil, err
			}
			if a, ok := refusal(line); ok {
				return decision(a, nil), nil
			}
			if strings.TrimSpace(line) != "" {
				values[f.Name] = line
			}
		}
		content, err := q.Answer(values)
		if err == nil {
			return decision(mcp.ElicitationResponseActionAccept, content), nil
		}
		fmt.Fprintf(t.out, "Not sent: %v. Answer again.\n", err)
	}
}

func fieldList(q *interact.Elicitation) string {
	var names []string
	for _, f := range q.Fields {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func refusal(line string) (mcp.ElicitationResponseAction, bool) {
	switch strings.TrimSpace(line) {
	case "!decline":
		return mcp.ElicitationResponseActionDecline, true
	case "!cancel":
		return mcp.ElicitationResponseActionCancel, true
	}
	return "", false
}

// readLine reads one line, giving up when ctx ends (the reading goroutine then finishes
// with the next line or EOF).
func (t *termElicitor) readLine(ctx context.Context) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := t.in.ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- res{strings.TrimRight(s, "\r\n"), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", fmt.Errorf("reading the answer: %w", r.err)
		}
		return r.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
