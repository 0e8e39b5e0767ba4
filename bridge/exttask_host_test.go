package bridge

import (
	"context"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/testkit/exttasks"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// These tests are the host's side of the tasks extension of 2026-07-28 (SEP-2663), the
// counterparts of the 2025-11-25 task tests on the everything server
// (tasks_everything_test.go) and of the CLI's TestCallWaitsForExtensionTask: a zot
// tool_call to a tool that the exttasks server runs as a task, time on the fake clock.

// extTaskPoll is the server's pollIntervalMs in these tests: a length no other timer of
// the bridge has (the note board's are 50 and 250 ms), so waiting for a timer of it is
// waiting for the bridge's next tasks/get.
const extTaskPoll = 700 * time.Millisecond

// extTaskSession is a fake zot host talking to a bridge that bridges ts as server "t".
type extTaskSession struct {
	h     *exttest.Host
	b     *Bridge
	clock *fakeClock
	ts    *exttasks.Server
}

// extTaskHost configures ts as server "t", fills the cache with its tools (as a user's
// session finds them) and starts a bridge behind a host with caps (nil: the released zot,
// without deferred tools).
func extTaskHost(t *testing.T, ts *exttasks.Server, caps []string) *extTaskSession {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	cfg := `{"mcpServers": {"t": {"url": "` + ts.URL + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newFakeClock()
	opts := Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: c,
		Log: zerolog.New(testutil.Log(t)), Resolver: noDNS(), Connect: exttasks.Connect(ts.URL)}
	pre := loadBridge(t, opts, project, extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"t"}); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	pre.Close(ctxGuard(t))
	b := New(opts)
	h := serveHost(t, b)
	h.Handshake(ctxGuard(t), exttest.Ack{Cwd: project, Capabilities: caps})
	return &extTaskSession{h: h, b: b, clock: c, ts: ts}
}

// start sends the tool_call id for the server's task tool and returns once the task
// runs on the server and the bridge waits for its next poll (so the call waits too).
func (s *extTaskSession) start(t *testing.T, id, tool string) {
	t.Helper()
	var err error
	if tool == CallToolName {
		err = s.h.SendToolCall(id, CallToolName, map[string]any{"server": "t", "tool": "slow", "arguments": map[string]any{}})
	} else {
		err = s.h.SendToolCall(id, "mcp__t__slow", map[string]any{})
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxGuard(t)
	select {
	case <-s.ts.Running:
	case <-ctx.Done():
		t.Fatal("the task never started on the server")
	}
	if err := s.clock.WaitTimer(ctx, extTaskPoll); err != nil {
		t.Fatalf("the bridge does not poll the task: %v", err)
	}
}

// pollUntil advances the clock one poll interval at a time, each once the bridge waits
// for it, until until is closed (bounded by the guard).
func (s *extTaskSession) pollUntil(t *testing.T, until <-chan struct{}, what string) {
	t.Helper()
	ctx := ctxGuard(t)
	for !isClosed(until) {
		wctx, stop := context.WithCancel(ctx)
		go func() {
			select {
			case <-until:
			case <-wctx.Done():
			}
			stop()
		}()
		err := s.clock.WaitTimer(wctx, extTaskPoll)
		stop()
		if isClosed(until) {
			return
		}
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		s.clock.Advance(extTaskPoll)
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// result waits for the tool_result of id.
func (s *extTaskSession) result(t *testing.T, id string) exttest.ToolResult {
	t.Helper()
	r, err := s.h.WaitToolResult(ctxGuard(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkWire fails the test when the task's requests lacked what the extension needs.
func (s *extTaskSession) checkWire(t *testing.T) {
	t.Helper()
	if !s.ts.Declared() {
		t.Error("the tools/call did not declare the tasks extension in its _meta")
	}
	if m := s.ts.Misrouted(); len(m) > 0 {
		t.Errorf("task requests without their task id as Mcp-Name: %q", m)
	}
}

// TestHostWaitsForExtensionTask: a zot tool_call to a tool the server runs as an
// extension task waits for the task's result, polling tasks/get at the server's
// interval, and the task's status message reaches zot as the call's progress note,
// which goes away when the call ends (as a 2025-11-25 task's progress does). A question
// the task asks (status input_required) reaches the user as a /mcp answer note, and the
// answer goes back with tasks/update (TestEverythingTaskAsksDuringItsRun on the legacy
// wire). Both through the tool's own name and through mcp__call_tool (the released zot).
func TestHostWaitsForExtensionTask(t *testing.T) {
	t.Parallel()
	ask := &mcp.ElicitationParams{Message: "Really crunch?", RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"sure": map[string]any{"type": "boolean"}}}}
	for _, tt := range []struct {
		name string
		caps []string
		tool string
		ask  bool
	}{
		{name: "deferred tools", caps: []string{"call_tool"}, tool: "mcp__t__slow"},
		{name: "proxy", caps: nil, tool: CallToolName},
		{name: "asks the user", caps: []string{"call_tool"}, tool: "mcp__t__slow", ask: true},
		{name: "asks the user, proxy", caps: nil, tool: CallToolName, ask: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := exttasks.New(t, extTaskPoll.Milliseconds())
			if tt.ask {
				ts.Ask = ask
			}
			s := extTaskHost(t, ts, tt.caps)
			s.start(t, "t1", tt.tool)
			if tt.caps != nil {
				// Hosts without clear_notes get no progress notes (TestLegacyHostGetsNoProgressNotes).
				if _, err := s.h.WaitNotify(ctxGuard(t), "t slow: crunching"); err != nil {
					t.Fatalf("the task's status message did not reach zot as progress: %v", err)
				}
			}
			if tt.ask {
				s.clock.Advance(extTaskPoll) // the poll that finds the question
				note, err := s.h.WaitNotify(ctxGuard(t), "(request 1)")
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(note.Unwrapped, "Really crunch?") || !strings.Contains(note.Unwrapped, "sure") {
					t.Fatalf("the task's question lacks its message or field:\n%s", note.Message)
				}
				resp, err := s.h.Command(ctxGuard(t), "c1", "mcp", "answer 1 sure=true")
				if err != nil || resp.Error != "" {
					t.Fatalf("/mcp answer: %v %q", err, resp.Error)
				}
				select {
				case <-ts.Updated:
				case <-ctxGuard(t).Done():
					t.Fatal("the answer never reached the server with tasks/update")
				}
				if !strings.Contains(ts.Answer(), `"action":"accept"`) || !strings.Contains(ts.Answer(), `"sure":true`) {
					t.Fatalf("tasks/update brought %s, want the user's answer", ts.Answer())
				}
			}
			close(ts.Release)
			s.pollUntil(t, ts.Finished, "the task's result")
			r := s.result(t, "t1")
			if r.IsError || r.Text() != "done at last" {
				t.Fatalf("the call should return the task's result: %+v", r)
			}
			if slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
				t.Fatalf("a result that came in time should not offer %s: %v", tasks.TaskResultToolName, r.ActivateTools)
			}
			if len(s.b.x.tasks.List("t")) != 0 {
				t.Fatalf("a delivered task stayed on the board: %v", s.b.x.tasks.List("t"))
			}
			if isClosed(ts.Cancelled) {
				t.Fatal("a task that finished was cancelled")
			}
			s.checkWire(t)
		})
	}
}

// TestHostCancelsExtensionTask: the host's tool_cancel of a call that waits for an
// extension task sends tasks/cancel, so the server's task ends, and the task leaves the
// board (TestEverythingTaskCancel on the legacy wire); also while the task waits for the
// user's answer to its question, whose note then goes away and which the server hears
// cancelled, if at all.
func TestHostCancelsExtensionTask(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ask  bool
	}{
		{name: "working"},
		{name: "waiting for an answer", ask: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := exttasks.New(t, extTaskPoll.Milliseconds())
			if tt.ask {
				ts.Ask = &mcp.ElicitationParams{Message: "Really crunch?", RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{"sure": map[string]any{"type": "boolean"}}}}
			}
			s := extTaskHost(t, ts, []string{"call_tool"})
			s.start(t, "t1", "mcp__t__slow")
			if _, err := s.h.WaitNotify(ctxGuard(t), "t slow: crunching"); err != nil {
				t.Fatal(err)
			}
			task := s.b.x.tasks.Get("t", exttasks.TaskID)
			if task == nil {
				t.Fatalf("task %s not on the board", exttasks.TaskID)
			}
			if tt.ask {
				s.clock.Advance(extTaskPoll)
				if _, err := s.h.WaitNotify(ctxGuard(t), "(request 1)"); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.h.Cancel("t1"); err != nil {
				t.Fatal(err)
			}
			ctx := ctxGuard(t)
			select {
			case <-ts.Cancelled:
			case <-ctx.Done():
				t.Fatal("tool_cancel did not send tasks/cancel")
			}
			select {
			case <-task.Done():
			case <-ctx.Done():
				t.Fatal("the cancelled task's poll went on")
			}
			// The call's end takes its progress note away: the event that the call is over.
			if _, err := s.h.NextType(ctx, "clear_notes"); err != nil {
				t.Fatal(err)
			}
			if got := s.b.x.tasks.List("t"); len(got) != 0 {
				t.Fatalf("the cancelled task stayed on the board: %v", got)
			}
			// The question ended with the call, as a 2025-11-25 task's elicitation request
			// does: the server hears "cancel", never an answer nobody gave.
			if a := ts.Answer(); a != "" && a != `{"action":"cancel"}` {
				t.Fatalf("tasks/update brought %s to a cancelled task", a)
			}
			s.checkWire(t)
		})
	}
}

// TestHostExtensionTaskOutlivesBudget: an extension task that outlives the call's budget
// (the fake clock passes it while the server works) is not cancelled: the call says it is
// still running and how to fetch it, /mcp t lists it, and mcp__task_result (or, on the
// released zot, mcp__call_tool with mcp:task_result) returns its result once the polls
// find it; a second fetch finds nothing (TestEverythingTaskOutlivesBudget and
// TestTaskResultThroughCallTool on the legacy wire). A question the task asked and nobody
// answered while the call waited is answered "cancel" when the call stops waiting; the
// question's own deadline is the same instant, and when it won the race the call used to
// answer with the expired question alone, without the task's id (about half the runs).
func TestHostExtensionTaskOutlivesBudget(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		caps      []string
		tool      string
		fetch     string // how the still-running answer says to fetch the result
		fetchCall func(id string) (string, map[string]any)
		activates bool
		ask       bool // the task asks the user, who does not answer within the call's time
	}{
		{name: "deferred tools", caps: []string{"call_tool"}, tool: "mcp__t__slow",
			fetch: tasks.TaskResultToolName + ` {"server":"t","task":"` + exttasks.TaskID + `"}`,
			fetchCall: func(id string) (string, map[string]any) {
				return tasks.TaskResultToolName, map[string]any{"server": "t", "task": id}
			}, activates: true},
		{name: "proxy", caps: nil, tool: CallToolName,
			fetch: `mcp__call_tool {"arguments":{"task":"` + exttasks.TaskID + `"},"server":"t","tool":"mcp:task_result"}`,
			fetchCall: func(id string) (string, map[string]any) {
				return CallToolName, map[string]any{"server": "t", "tool": TaskResultCall, "arguments": map[string]any{"task": id}}
			}},
		{name: "question unanswered", caps: []string{"call_tool"}, tool: "mcp__t__slow", ask: true,
			fetch: tasks.TaskResultToolName + ` {"server":"t","task":"` + exttasks.TaskID + `"}`,
			fetchCall: func(id string) (string, map[string]any) {
				return tasks.TaskResultToolName, map[string]any{"server": "t", "task": id}
			}, activates: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := exttasks.New(t, extTaskPoll.Milliseconds())
			if tt.ask {
				ts.Ask = &mcp.ElicitationParams{Message: "Really crunch?", RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{"sure": map[string]any{"type": "boolean"}}}}
			}
			s := extTaskHost(t, ts, tt.caps)
			s.start(t, "t1", tt.tool)
			if tt.ask {
				s.clock.Advance(extTaskPoll)
				if _, err := s.h.WaitNotify(ctxGuard(t), "(request 1)"); err != nil {
					t.Fatal(err)
				}
			}
			// To where the wait gives up (before the host's deadline) and no further: in real
			// time the call answers then, before the question's own deadline, the call's.
			s.clock.Advance(s.b.opts.CallBudget - interact.AnswerMargin)
			r := s.result(t, "t1")
			if tt.ask {
				// The question belonged to the call, which stopped waiting: it ends as a
				// 2025-11-25 task's elicitation request does, answered "cancel".
				select {
				case <-ts.Updated:
				case <-ctxGuard(t).Done():
					t.Fatal("the question open when the call stopped waiting was never answered")
				}
				if a := ts.Answer(); a != `{"action":"cancel"}` {
					t.Fatalf("tasks/update brought %s, want the question cancelled", a)
				}
			}
			text := r.Text()
			if r.IsError || !strings.Contains(text, "still running slow as task "+exttasks.TaskID+" (crunching)") || !strings.Contains(text, tt.fetch) {
				t.Fatalf("the call that outlived its budget should say how to fetch the task with %s: %+v", tt.fetch, r)
			}
			if got := slices.Contains(r.ActivateTools, tasks.TaskResultToolName); got != tt.activates {
				t.Fatalf("%s activated: %v, want %v (%v)", tasks.TaskResultToolName, got, tt.activates, r.ActivateTools)
			}
			if isClosed(ts.Cancelled) {
				t.Fatal("a task that outlived the call's budget was cancelled; its work would be lost")
			}
			resp, err := s.h.Command(ctxGuard(t), "c1", "mcp", "t")
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`Tasks \(1;[^\n]*\n\s+` + regexp.QuoteMeta(exttasks.TaskID) + `\s+slow\s+running`).MatchString(resp.Display) {
				t.Fatalf("/mcp t does not list the running task:\n%s", resp.Display)
			}

			name, args := tt.fetchCall(exttasks.TaskID)
			if err := s.h.SendToolCall("t2", name, args); err != nil {
				t.Fatal(err)
			}
			close(ts.Release)
			s.pollUntil(t, ts.Finished, "the task's result")
			r = s.result(t, "t2")
			if r.IsError || r.Text() != "done at last" {
				t.Fatalf("%s did not return the task's result: %+v", name, r)
			}
			if slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
				t.Fatalf("a finished task's result should not offer %s again: %v", tasks.TaskResultToolName, r.ActivateTools)
			}
			r, err = s.h.CallTool(ctxGuard(t), "t3", name, args)
			if err != nil {
				t.Fatal(err)
			}
			if !r.IsError || !strings.Contains(r.Text(), "already returned") {
				t.Fatalf("a second fetch of a delivered task should explain it is gone: %+v", r)
			}
			resp, err = s.h.Command(ctxGuard(t), "c2", "mcp", "t")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(resp.Display, "Tasks (") {
				t.Fatalf("/mcp t still lists a delivered task:\n%s", resp.Display)
			}
			if isClosed(ts.Cancelled) {
				t.Fatal("a fetched task was cancelled")
			}
			s.checkWire(t)
		})
	}
}
