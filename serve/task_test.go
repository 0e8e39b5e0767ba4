package serve

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServeClientTasks: a 2025-11-25 client may run a served call as a task: the task is
// created at once, its result is the server's, and a cancelled task cancels the server's
// call.
func TestServeClientTasks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Tools: ToolsAll, Unprefixed: true}, "alpha")
	url := f.listen()
	c := httpClient(t, url, mcp.LATEST_LEGACY_PROTOCOL_VERSION, &asker{}, nil)
	tr := c.GetTransport()
	send := func(id int, name string, args map[string]any) mcp.Task {
		t.Helper()
		resp, err := tr.SendRequest(testCtx(t), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(id)), Method: string(mcp.MethodToolsCall),
			Params: map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": 600000}}})
		if err != nil || resp.Error != nil {
			t.Fatalf("task-augmented call: %v %+v", err, resp)
		}
		var created mcp.CreateTaskResult
		if err := json.Unmarshal(resp.Result, &created); err != nil || created.Task.TaskId == "" {
			t.Fatalf("answer %s, want a created task", resp.Result)
		}
		return created.Task
	}
	task := send(100, "echo", map[string]any{"text": "as a task"})
	// mcp-go's client drops a task result's content when it decodes it: read it raw.
	resp, err := tr.SendRequest(testCtx(t), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(102)), Method: string(mcp.MethodTasksResult),
		Params: map[string]any{"taskId": task.TaskId}})
	if err != nil || resp.Error != nil {
		t.Fatalf("tasks/result: %v %+v", err, resp)
	}
	raw := resp.Result
	if want := "alpha: as a task"; !containsText(raw, want) {
		t.Fatalf("task result %s, want %q", raw, want)
	}
	hang := send(101, "hang", nil)
	if _, err := c.CancelTask(testCtx(t), mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: hang.TaskId}}); err != nil {
		t.Fatalf("tasks/cancel: %v", err)
	}
	select {
	case <-f.backends["alpha"].cancelled:
	case <-testCtx(t).Done():
		t.Fatal("the cancelled task's call went on at the server")
	}
}

func containsText(raw []byte, want string) bool {
	var v struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	for _, c := range v.Content {
		if c.Text == want {
			return true
		}
	}
	return false
}
