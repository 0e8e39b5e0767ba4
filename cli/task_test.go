package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	mcpcmd "github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/exttasks"
)

// taskServer is an MCP server (mcp-go, served on 127.0.0.1) whose tool "slow" the server
// runs as a task: it works until released. Its tasks/get answers ask for polls every
// taskPoll; cancelled is closed when a tasks/cancel arrives. (mcp-go ends the context of
// a task's handler with the request that created it, so the handler cannot watch it.)
type taskServer struct {
	srv       *server.MCPServer
	running   chan struct{} // closed when the tool started
	release   chan struct{} // close to let it finish
	cancelled chan struct{} // closed when tasks/cancel arrived
}

const taskPoll = 250 * time.Millisecond

func newTaskServer() *taskServer {
	ts := &taskServer{running: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
	hooks := &server.Hooks{}
	var cancelOnce sync.Once
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		if method == mcp.MethodTasksCancel {
			cancelOnce.Do(func() { close(ts.cancelled) })
		}
	})
	hooks.AddOnSuccess(func(_ context.Context, _ any, _ mcp.MCPMethod, _ any, result any) {
		if r, ok := result.(*mcp.GetTaskResult); ok {
			ms := taskPoll.Milliseconds()
			r.PollInterval = &ms
		}
	})
	ts.srv = server.NewMCPServer("tasks", "1.0", server.WithToolCapabilities(true), server.WithTaskCapabilities(true, true, true), server.WithHooks(hooks))
	var once sync.Once
	ts.srv.AddTool(mcp.NewTool("slow", mcp.WithTaskSupport(mcp.TaskSupportOptional)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		once.Do(func() { close(ts.running) })
		<-ts.release
		return mcp.NewToolResultText("done at last"), nil
	})
	return ts
}

// taskBridge is the CLI's bridge over ts (streamable HTTP) on a fake clock.
func taskBridge(t *testing.T, ts *taskServer, c clock.Clock) *bridge.Bridge {
	t.Helper()
	home := t.TempDir()
	hs := httptest.NewServer(server.NewStreamableHTTPServer(ts.srv))
	t.Cleanup(hs.Close)
	// 2025-11-25 tasks (the modern era's tasks extension: TestCallWaitsForExtensionTask).
	cfg := `{"mcpServers": {"t": {"url": "` + hs.URL + `/mcp", "protocolVersion": "2025-11-25"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	b := bridge.New(bridge.Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false },
		Clock: c, Log: zerolog.Nop(), Surface: mcpcmd.SurfaceCLI, CallBudget: 55 * time.Second})
	b.Load(t.TempDir(), extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// TestCallWaitsForTask: `call` of a tool the server runs as a task waits for the task's
// result past the call's budget (asking again while the bridge says it still runs),
// shows the task's status at the server's poll interval on the injected clock, and
// prints the result like any call; --no-wait prints the task's id at once; Ctrl-C
// cancels the task on the server and exits non-zero. Before, the call printed "still
// running" after the budget and the CLI had no way to fetch the result.
func TestCallWaitsForTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		noWait bool
		// act runs once the task works; cancel is the call's Ctrl-C.
		act        func(t *testing.T, ctx context.Context, c *clock.Fake, ts *taskServer, cancel func())
		wantCode   int
		wantStdout string // a prefix
		wantStderr []string
	}{
		{name: "waits past the budget, with status lines",
			act: func(t *testing.T, ctx context.Context, c *clock.Fake, ts *taskServer, _ func()) {
				// The status poll asks again at the server's interval...
				if err := c.AdvanceWhenSet(ctx, taskPoll); err != nil {
					t.Fatal(err)
				}
				// ...and the bridge's wait runs out of the call's budget while the task works on.
				if err := c.AdvanceWhenSet(ctx, 55*time.Second-taskPoll-interact.AnswerMargin); err != nil {
					t.Fatal(err)
				}
				close(ts.release)
			},
			wantStdout: "done at last\n", wantStderr: []string{"slow runs as task", "waiting for its result", ": working"}},
		{name: "no wait", noWait: true, act: func(*testing.T, context.Context, *clock.Fake, *taskServer, func()) {},
			wantStderr: []string{"not waiting for it (--no-wait)"}},
		{name: "ctrl-c cancels the task",
			act: func(t *testing.T, ctx context.Context, c *clock.Fake, ts *taskServer, cancel func()) {
				if err := c.WaitTimer(ctx, taskPoll); err != nil { // the wait is under way
					t.Fatal(err)
				}
				cancel()
				select {
				case <-ts.cancelled:
				case <-ctx.Done():
					t.Fatal("the server's task was not cancelled")
				}
			},
			wantCode: exitInterrupted, wantStderr: []string{"was cancelled on the server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			guard, stopGuard := context.WithTimeout(context.Background(), time.Minute)
			defer stopGuard()
			c := clock.NewFake()
			ts := newTaskServer()
			b := taskBridge(t, ts, c)
			t.Cleanup(func() {
				select {
				case <-ts.release:
				default:
					close(ts.release)
				}
			})
			var stdout, stderr bytes.Buffer
			call := &taskCall{b: b, clock: c, noWait: tt.noWait, status: true, stdout: &stdout, stderr: &stderr}
			ctx, cancel := context.WithCancel(guard)
			defer cancel()
			done := make(chan int, 1)
			go func() { done <- call.run(ctx, "t", "slow", json.RawMessage(`{}`)) }()
			if !tt.noWait {
				select {
				case <-ts.running:
				case <-guard.Done():
					t.Fatal("the task never started")
				}
				tt.act(t, guard, c, ts, cancel)
			}
			var code int
			select {
			case code = <-done:
			case <-guard.Done():
				t.Fatalf("call did not return; stderr: %s", stderr.String())
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if tt.noWait {
				if id := strings.TrimSpace(stdout.String()); id == "" || strings.Contains(id, " ") {
					t.Fatalf("--no-wait should print the task id: %q", stdout.String())
				}
			} else if stdout.String() != tt.wantStdout {
				t.Fatalf("stdout %q, want %q (stderr %q)", stdout.String(), tt.wantStdout, stderr.String())
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q: %s", w, stderr.String())
				}
			}
		})
	}
}

// extTaskBridge is the CLI's bridge over ts, a server of the 2026-07-28 tasks extension,
// on a fake clock, its questions answered with the defaults (--accept-defaults).
func extTaskBridge(t *testing.T, ts *exttasks.Server, c clock.Clock, stderr io.Writer) *bridge.Bridge {
	t.Helper()
	home := t.TempDir()
	cfg := `{"mcpServers": {"t": {"url": "` + ts.URL + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	b := bridge.New(bridge.Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false },
		Clock: c, Log: zerolog.Nop(), Surface: mcpcmd.SurfaceCLI, CallBudget: 55 * time.Second, Connect: exttasks.Connect(ts.URL)})
	b.SetElicitor(newTermElicitor(strings.NewReader(""), false, stderr, true))
	b.Load(t.TempDir(), extension.GenNew)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// TestCallWaitsForExtensionTask: on a 2026-07-28 server of the tasks extension, `call`
// behaves as with a 2025-11-25 task: it waits for the result (the bridge polls tasks/get
// at the server's interval, and answers the task's question with tasks/update), shows the
// status lines, --no-wait prints the task's id, Ctrl-C cancels the task with tasks/cancel.
// Before, the bridge sent the call as a plain tools/call and failed on the task it got.
func TestCallWaitsForExtensionTask(t *testing.T) {
	t.Parallel()
	poll := 250 * time.Millisecond
	ask := &mcp.ElicitationParams{Message: "Really crunch?", RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"sure": map[string]any{"type": "boolean", "default": true}}}}
	tests := []struct {
		name       string
		noWait     bool
		ask        bool
		askTwice   bool
		act        func(t *testing.T, ctx context.Context, c *clock.Fake, ts *exttasks.Server, cancel func(), returned <-chan struct{})
		wantCode   int
		wantStdout string
		wantStderr []string
	}{
		{name: "waits, answering the task's question", ask: true,
			act: func(t *testing.T, ctx context.Context, c *clock.Fake, ts *exttasks.Server, _ func(), returned <-chan struct{}) {
				// A poll finds the question; its answer goes with tasks/update.
				advanceUntil(t, ctx, c, poll, ts.Updated, returned)
				close(ts.Release)
				advanceUntil(t, ctx, c, poll, ts.Finished, returned)
			},
			wantStdout: "done at last\n", wantStderr: []string{"slow runs as task", "Really crunch?", "accepted the defaults", ": working: crunching"}},
		{name: "asks again with the same key", ask: true, askTwice: true,
			act: func(t *testing.T, ctx context.Context, c *clock.Fake, ts *exttasks.Server, _ func(), returned <-chan struct{}) {
				// The task works after the first answer, then asks under the same key again:
				// that is a new question, answered with a second tasks/update.
				advanceUntil(t, ctx, c, poll, ts.UpdatedTwice, returned)
				close(ts.Release)
				advanceUntil(t, ctx, c, poll, ts.Finished, returned)
			},
			wantStdout: "done at last\n", wantStderr: []string{"slow runs as task", "Really crunch?", "accepted the defaults"}},
		{name: "no wait", noWait: true, act: func(*testing.T, context.Context, *clock.Fake, *exttasks.Server, func(), <-chan struct{}) {},
			wantStderr: []string{"not waiting for it (--no-wait)"}},
		{name: "ctrl-c cancels the task",
			act: func(t *testing.T, ctx context.Context, c *clock.Fake, ts *exttasks.Server, cancel func(), _ <-chan struct{}) {
				if err := c.WaitTimer(ctx, poll); err != nil { // the wait is under way
					t.Fatal(err)
				}
				cancel()
				select {
				case <-ts.Cancelled:
				case <-ctx.Done():
					t.Fatal("the server's task was not cancelled")
				}
			},
			wantCode: exitInterrupted, wantStderr: []string{"was cancelled on the server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			guard, stopGuard := context.WithTimeout(context.Background(), time.Minute)
			defer stopGuard()
			c := clock.NewFake()
			ts := exttasks.New(t, poll.Milliseconds())
			if tt.ask {
				ts.Ask = ask
			}
			ts.AskTwice = tt.askTwice
			var stdout, stderr syncBuffer
			b := extTaskBridge(t, ts, c, &stderr)
			call := &taskCall{b: b, clock: c, noWait: tt.noWait, status: true, stdout: &stdout, stderr: &stderr}
			ctx, cancel := context.WithCancel(guard)
			defer cancel()
			done := make(chan int, 1)
			returned := make(chan struct{})
			go func() {
				done <- call.run(ctx, "t", "slow", json.RawMessage(`{}`))
				close(returned)
			}()
			if !tt.noWait {
				select {
				case <-ts.Running:
				case <-guard.Done():
					t.Fatal("the task never started")
				}
				tt.act(t, guard, c, ts, cancel, returned)
			}
			var code int
			select {
			case code = <-done:
			case <-guard.Done():
				t.Fatalf("call did not return; stderr: %s", stderr.String())
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tt.wantCode, stdout.String(), stderr.String())
			}
			if tt.noWait {
				if id := strings.TrimSpace(stdout.String()); id != exttasks.TaskID {
					t.Fatalf("--no-wait should print the task id: %q", stdout.String())
				}
			} else if stdout.String() != tt.wantStdout {
				t.Fatalf("stdout %q, want %q (stderr %q)", stdout.String(), tt.wantStdout, stderr.String())
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q: %s", w, stderr.String())
				}
			}
			if tt.ask && !strings.Contains(ts.Answer(), `"sure":true`) {
				t.Errorf("tasks/update brought %s, want the accepted default", ts.Answer())
			}
			if !ts.Declared() {
				t.Error("the tools/call did not declare the tasks extension in its _meta")
			}
			if m := ts.Misrouted(); len(m) > 0 {
				t.Errorf("task requests without their task id as Mcp-Name: %q", m)
			}
		})
	}
}

// advanceUntil advances the fake clock by poll each time a timer of that length is set
// (the bridge's polls and the status lines'), until until is closed or the call returned.
func advanceUntil(t *testing.T, ctx context.Context, c *clock.Fake, poll time.Duration, until, returned <-chan struct{}) {
	t.Helper()
	for !closed(until) {
		wctx, stop := context.WithCancel(ctx)
		context.AfterFunc(ctx, stop)
		go func() {
			select {
			case <-returned: // the call ended: nothing waits on the clock now
			case <-until:
			case <-wctx.Done():
			}
			stop()
		}()
		err := c.AdvanceWhenSet(wctx, poll)
		stop()
		if err != nil && closed(returned) {
			return
		}
		if err != nil && !closed(until) {
			t.Fatal(err)
		}
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// syncBuffer is a bytes.Buffer that the call's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
