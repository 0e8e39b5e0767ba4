package tasks

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// TestTasksText: /mcp <server>'s task list says how this host fetches a result (in proxy
// mode there is no mcp__task_result to name), and shows a task's id, the server's text,
// escaped.
func TestTasksText(t *testing.T) {
	tb := NewBoard(clock.System{})
	start := time.Unix(1000, 0)
	tb.Add(lifecycle.NewTask("s", "research", "t-1\x1b]52;c;eA==\x07\u202e", start, nil, zerolog.Nop(), func() {}))
	for _, fetch := range []string{`mcp__task_result {"server": …, "task": …}`, `mcp__call_tool {"server": …, "tool": "mcp:task_result", "arguments": {"task": …}}`} {
		got := tb.Text("s", start.Add(5*time.Second), fetch)
		want := "Tasks (1; fetch with " + fetch + "):\n  " + `t-1\x1b]52;c;eA==\x07\u202e` + "  research  running, started 5s ago\n"
		if got != want {
			t.Errorf("Text =\n%q, want\n%q", got, want)
		}
	}
}

// TestStillRunningStatusIsSafe: a task's status message is the server's text: it reaches
// the model without terminal controls and cut to a bound.
func TestStillRunningStatusIsSafe(t *testing.T) {
	task := lifecycle.NewTask("s", "research", "t-1", time.Unix(1000, 0), nil, zerolog.Nop(), func() {})
	msg := "\x1b]52;c;eA==\x07working " + strings.Repeat("x", 5000)
	res := StillRunning(task, &mcp.Task{StatusMessage: msg}, "fetch")
	text := res.Content[0].(mcp.TextContent).Text
	if strings.ContainsAny(text, "\x1b\x07") || len(text) > 1000 || !strings.Contains(text, "working") {
		t.Fatalf("still-running text (%d bytes): %q", len(text), textcut.Truncate(text, 120))
	}
}
