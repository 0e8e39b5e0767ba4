package bridge

import (
	"encoding/json"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// researchTool is the everything server's task tool (execution.taskSupport "required";
// it works through four one-second stages before its report is ready).
const researchTool = "simulate-research-query"

// registeredName is the name the model sees for the everything server's tool.
func (s *everythingSession) registeredName(t *testing.T, tool string) string {
	t.Helper()
	e, ok := s.b.catalog().LookupRef("everything", tool)
	if !ok {
		t.Fatalf("%s not in the catalog", tool)
	}
	return e.Name
}

// waitTaskWaiter waits until the server has one task on the board with a call waiting
// for it (the wait's timer is then armed on the injected clock), and returns it.
func waitTaskWaiter(t *testing.T, b *Bridge, server string) *lifecycle.Task {
	t.Helper()
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		if ts := b.x.tasks.List(server); len(ts) == 1 && ts[0].Waiting.Load() == 1 {
			return ts[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no task of %s with a waiting call on the board: %v", server, b.x.tasks.List(server))
	return nil
}

// TestEverythingTaskOutlivesBudget: a task-augmented call to the everything server's
// research tool outlives the call's budget (the injected clock passes it while the server
// works); the result says it is still running and how to fetch it, /mcp everything lists
// it, and mcp__task_result then returns the report. A second fetch finds nothing.
func TestEverythingTaskOutlivesBudget(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	reg, ok := s.registered(tasks.TaskResultToolName)
	if !ok || string(reg["deferred"]) != "true" {
		t.Fatalf("%s not registered deferred on a host with deferred tools: %v", tasks.TaskResultToolName, reg)
	}
	name := s.registeredName(t, researchTool)
	if err := s.h.SendToolCall("t1", name, map[string]any{"topic": "tides"}); err != nil {
		t.Fatal(err)
	}
	task := waitTaskWaiter(t, s.b, "everything")
	s.e.clock.Advance(s.b.opts.CallBudget)
	r, err := s.h.WaitToolResult(ctxGuard(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	if r.IsError || !strings.Contains(text, "still running") || !strings.Contains(text, task.ID) ||
		!strings.Contains(text, tasks.TaskResultToolName+` {"server":"everything","task":"`+task.ID+`"}`) {
		t.Fatalf("the call that outlived its budget should say how to fetch the task: %+v", r)
	}
	if !slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
		t.Fatalf("%s not activated by the still-running result: %v", tasks.TaskResultToolName, r.ActivateTools)
	}

	resp, err := s.h.Command(ctxGuard(t), "c1", "mcp", "everything")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Tasks \(1;[^\n]*\n\s+` + regexp.QuoteMeta(task.ID) + `\s+` + researchTool).MatchString(resp.Display) {
		t.Fatalf("/mcp everything does not list the running task:\n%s", resp.Display)
	}

	r = s.call(t, "t2", tasks.TaskResultToolName, map[string]any{"server": "everything", "task": task.ID})
	if r.IsError || !strings.Contains(r.Text(), "Research Report: tides") {
		t.Fatalf("%s did not return the task's report: %+v", tasks.TaskResultToolName, r)
	}
	if slices.Contains(r.ActivateTools, tasks.TaskResultToolName) {
		t.Fatalf("a finished task's result should not offer %s again: %v", tasks.TaskResultToolName, r.ActivateTools)
	}
	r = s.call(t, "t3", tasks.TaskResultToolName, map[string]any{"server": "everything", "task": task.ID})
	if !r.IsError || !strings.Contains(r.Text(), "already returned") {
		t.Fatalf("a second fetch of a delivered task should explain it is gone: %+v", r)
	}
	resp, err = s.h.Command(ctxGuard(t), "c2", "mcp", "everything")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Display, "Tasks (") {
		t.Fatalf("/mcp everything still lists a delivered task:\n%s", resp.Display)
	}
}

// TestEverythingTaskCancel: the host's tool_cancel on a task-augmented call sends
// tasks/cancel, so the server reports the task cancelled.
func TestEverythingTaskCancel(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	name := s.registeredName(t, researchTool)
	if err := s.h.SendToolCall("t1", name, map[string]any{"topic": "tides"}); err != nil {
		t.Fatal(err)
	}
	task := waitTaskWaiter(t, s.b, "everything")
	if err := s.h.Cancel("t1"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(guard)
	for len(s.b.x.tasks.List("everything")) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled task stayed on the board")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := task.Sess.Request(ctxGuard(t), string(mcp.MethodTasksGet), mcp.GetTaskParams{TaskId: task.ID})
	if err != nil || resp.Error != nil {
		t.Fatalf("tasks/get: %v %v", err, resp)
	}
	var got mcp.GetTaskResult
	if err := json.Unmarshal(resp.Result, &got); err != nil {
		t.Fatalf("tasks/get result: %v", err)
	}
	if got.Status != mcp.TaskStatusCancelled {
		t.Fatalf("task status after tool_cancel = %q, want cancelled (tasks/cancel not sent?)", got.Status)
	}
}

// TestEverythingTaskToolKeepsExecution: the live listing keeps a tool's task support,
// which decides whether a call is task-augmented.
func TestEverythingTaskToolKeepsExecution(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	srv := s.b.servers["everything"]
	if err := srv.Start(ctxGuard(t)); err != nil {
		t.Fatal(err)
	}
	support := map[string]mcp.TaskSupport{}
	for _, tool := range srv.Tools() {
		if tool.Execution != nil {
			support[tool.Name] = tool.Execution.TaskSupport
		}
	}
	if s := support[researchTool]; s != mcp.TaskSupportOptional && s != mcp.TaskSupportRequired {
		t.Fatalf("%s should run as a task; its listing says %q", researchTool, s)
	}
	if s := support["echo"]; s == mcp.TaskSupportOptional || s == mcp.TaskSupportRequired {
		t.Fatalf("echo has no task support and must be called plainly; its listing says %q", s)
	}
}

// TestEverythingTaskAsksDuringItsRun: a task whose query is ambiguous asks the user through
// the tasks/result stream (status input_required); the question shows as a note, the
// answer reaches the server, and the report names the chosen interpretation.
func TestEverythingTaskAsksDuringItsRun(t *testing.T) {
	t.Parallel()
	s := everythingHost(t, []string{"call_tool"}, false, nil)
	name := s.registeredName(t, researchTool)
	if err := s.h.SendToolCall("t1", name, map[string]any{"topic": "python", "ambiguous": true}); err != nil {
		t.Fatal(err)
	}
	note, err := s.h.WaitNotify(ctxGuard(t), "(request 1)")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note.Message, "interpretation") {
		t.Fatalf("the task's question lacks its field:\n%s", note.Message)
	}
	resp, err := s.h.Command(ctxGuard(t), "c1", "mcp", "answer 1 interpretation=snake")
	if err != nil || resp.Error != "" {
		t.Fatalf("/mcp answer: %v %q", err, resp.Error)
	}
	r, err := s.h.WaitToolResult(ctxGuard(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || !strings.Contains(r.Text(), "Research Report: python (snake)") {
		t.Fatalf("the report should carry the answer: %+v", r)
	}
}
