// Package exttasks is a 2026-07-28 MCP server of the tasks extension (SEP-2663) for
// tests, over streamable HTTP on 127.0.0.1: mcp-go's server has no such extension, so the
// few methods are answered here with mcp-go's types. Its tool "slow" becomes a task that
// works until the test lets it finish, optionally asking the user a question first; its
// tool "quick" answers at once. Connect opens a modern session to it for the state
// machine's injected connector.
package exttasks

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TaskID is the id of the task "slow" starts.
const TaskID = "task-7f3a"

// Server is the tasks server of one test.
type Server struct {
	// PollMs is the pollIntervalMs of every task status.
	PollMs int64
	// Ask, when set, makes the task wait for this question's answer before it works.
	Ask *mcp.ElicitationParams
	// AskTwice makes the task, after the first answer, work for one poll and then ask
	// again under the same key.
	AskTwice bool

	URL string

	Running   chan struct{} // closed when "slow" became a task
	Release   chan struct{} // close to let the task finish
	Cancelled chan struct{} // closed when tasks/cancel arrived
	Updated   chan struct{} // closed when tasks/update brought the answer
	// UpdatedTwice is closed when tasks/update brought a second answer (AskTwice).
	UpdatedTwice chan struct{}
	Finished     chan struct{} // closed when tasks/get showed the result

	mu        sync.Mutex
	answer    json.RawMessage // the answer tasks/update brought
	answers   int             // how many tasks/update brought one
	gets      int             // tasks/get since the last answer
	declared  bool            // the tools/call declared the extension
	misrouted []string        // task requests whose Mcp-Name was not their taskId
	once      [5]sync.Once
	cancelled bool
}

// New serves a tasks server until the test ends.
func New(t testing.TB, pollMs int64) *Server {
	s := &Server{PollMs: pollMs, Running: make(chan struct{}), Release: make(chan struct{}),
		Cancelled: make(chan struct{}), Updated: make(chan struct{}), UpdatedTwice: make(chan struct{}), Finished: make(chan struct{})}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/mcp"
	return s
}

// Answer is what tasks/update brought for the question ("" before).
func (s *Server) Answer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.answer)
}

// Misrouted lists the task requests (tasks/get, tasks/update, tasks/cancel) whose
// Mcp-Name header was not their task's id, which a load balancer routes tasks by.
func (s *Server) Misrouted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.misrouted...)
}

// Declared reports whether the task's tools/call declared the extension in its _meta.
func (s *Server) Declared() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.declared
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// task is the task's state now, as tasks/get shows it.
func (s *Server) task() map[string]any {
	st := map[string]any{"taskId": TaskID, "status": mcp.TaskStatusWorking, "statusMessage": "crunching",
		"createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": nil, "pollIntervalMs": s.PollMs}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.cancelled:
		st["status"] = mcp.TaskStatusCancelled
	case s.Ask != nil && (s.answers == 0 || s.AskTwice && s.answers == 1 && s.gets >= 2):
		st["status"] = mcp.TaskStatusInputRequired
		st["inputRequests"] = map[string]any{"go": map[string]any{"method": "elicitation/create", "params": s.Ask}}
	case closed(s.Release):
		st["status"] = mcp.TaskStatusCompleted
		st["result"] = mcp.NewToolResultText("done at last")
	}
	return st
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var p struct {
		Name           string                     `json:"name"`
		TaskID         string                     `json:"taskId"`
		InputResponses json.RawMessage            `json:"inputResponses"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	var result any
	var rpcErr *mcp.JSONRPCErrorDetails
	switch req.Method {
	case string(mcp.MethodServerDiscover):
		result = map[string]any{"resultType": "complete", "supportedVersions": []string{mcp.LATEST_PROTOCOL_VERSION},
			"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{session.TasksExtension: map[string]any{}}},
			"serverInfo":   map[string]any{"name": "exttasks", "version": "1"}}
	case string(mcp.MethodToolsList):
		result = map[string]any{"resultType": "complete", "tools": []any{
			map[string]any{"name": "slow", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "quick", "inputSchema": map[string]any{"type": "object"}}}}
	case string(mcp.MethodToolsCall):
		if p.Name == "quick" {
			result = mcp.NewToolResultText("quick answer")
			break
		}
		var caps mcp.ClientCapabilities
		_ = json.Unmarshal(p.Meta[mcp.MetaKeyClientCapabilities], &caps)
		s.mu.Lock()
		_, s.declared = caps.Extensions[session.TasksExtension]
		s.mu.Unlock()
		st := s.task()
		st["resultType"] = "task"
		delete(st, "inputRequests")
		st["status"] = mcp.TaskStatusWorking
		result = st
		s.once[0].Do(func() { close(s.Running) })
	case string(mcp.MethodTasksGet), "tasks/update", string(mcp.MethodTasksCancel):
		if p.TaskID != TaskID {
			rpcErr = &mcp.JSONRPCErrorDetails{Code: mcp.INVALID_PARAMS, Message: "Task not found"}
			break
		}
		if got := r.Header.Get(mcp.HeaderName); got != p.TaskID || r.Header.Get(mcp.HeaderMethod) != req.Method {
			s.mu.Lock()
			s.misrouted = append(s.misrouted, req.Method+" with Mcp-Name "+got)
			s.mu.Unlock()
		}
		switch req.Method {
		case "tasks/update":
			var answers map[string]json.RawMessage
			_ = json.Unmarshal(p.InputResponses, &answers)
			if a, ok := answers["go"]; ok {
				s.mu.Lock()
				s.answer = a
				s.answers++
				s.gets = 0
				second := s.answers == 2
				s.mu.Unlock()
				s.once[1].Do(func() { close(s.Updated) })
				if second {
					s.once[4].Do(func() { close(s.UpdatedTwice) })
				}
			}
			result = map[string]any{"resultType": "complete"}
		case string(mcp.MethodTasksCancel):
			s.mu.Lock()
			s.cancelled = true
			s.mu.Unlock()
			s.once[2].Do(func() { close(s.Cancelled) })
			result = map[string]any{"resultType": "complete"}
		default:
			s.mu.Lock()
			s.gets++
			s.mu.Unlock()
			st := s.task()
			st["resultType"] = "complete"
			result = st
			if st["status"] == mcp.TaskStatusCompleted {
				s.once[3].Do(func() { close(s.Finished) })
			}
		}
	default:
		rpcErr = &mcp.JSONRPCErrorDetails{Code: mcp.METHOD_NOT_FOUND, Message: "no " + req.Method}
	}
	w.Header().Set("Content-Type", "application/json")
	out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		out["error"] = rpcErr
	} else {
		out["result"] = result
	}
	_ = json.NewEncoder(w).Encode(out)
}

// Connect opens a 2026-07-28 session to the server at url as h says: the state
// machine's injected connector, with the legacy pin of the bridge's initialize request
// lifted (negotiating the era is not this package's business).
func Connect(url string) func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
	return func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
		h.Init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		tr, err := transport.NewStreamableHTTP(url)
		if err != nil {
			return nil, err
		}
		s := &httpSession{Client: session.NewClient(tr, config.TransportStreamableHTTP, h)}
		if err := s.Initialize(ctx, h); err != nil {
			_ = s.Close(context.Background())
			return nil, err
		}
		return s, nil
	}
}

// httpSession is a session over mcp-go's streamable HTTP transport, without the bridge's
// HTTP layer (remote): enough for the state machine.
type httpSession struct{ *session.Client }

func (s *httpSession) Close(context.Context) error {
	s.Finish(session.End{Cause: session.CauseClosed})
	return s.MCP().Close()
}
