package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/config"
)

type rootsList []mcp.Root

func (r rootsList) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r}, nil
}

// accept answers every question with {"ok": true}, counting them.
type accept struct {
	mu    sync.Mutex
	asked []string
}

func (a *accept) Elicit(_ context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r.Params.Message)
	a.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"ok": true}}}, nil
}

// mrtrServer is a 2026-07-28 mcp-go server whose tools and prompt ask for input in
// their results.
func mrtrServer(t *testing.T) *server.MCPServer {
	t.Helper()
	srv := server.NewMCPServer("mrtr", "1.0", server.WithToolCapabilities(false), server.WithPromptCapabilities(false))
	form := mcp.ElicitationParams{Message: "Go on?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
	srv.AddTool(mcp.NewTool("ask"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a := server.ElicitationResponse(r.Params.InputResponses, "confirm"); a != nil {
			return mcp.NewToolResultText(fmt.Sprintf("%s state=%s", a.Action, r.Params.RequestState)), nil
		}
		return server.NewInputRequestBuilder("opaque \u00e9 \"state\"").Elicit("confirm", form).ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("roots"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if a := server.RootsResponse(r.Params.InputResponses, "where"); a != nil {
			return mcp.NewToolResultText(a.Roots[0].URI), nil
		}
		return server.NewInputRequestBuilder("").Roots("where").ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("sample"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return server.NewInputRequestBuilder("").Elicit("q", form).Sample("llm", mcp.CreateMessageParams{MaxTokens: 5}).ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("multi"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := len(r.Params.RequestState) // one more byte of state per round
		if n == 3 {
			return mcp.NewToolResultText("three rounds"), nil
		}
		return server.NewInputRequestBuilder(strings.Repeat("x", n+1)).Elicit(fmt.Sprintf("q%d", n), form).ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("endless"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return server.NewInputRequestBuilder("again").Roots(fmt.Sprintf("r%d", len(r.Params.InputResponses))).ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("shed"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return server.NewInputRequestBuilder("busy").ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("huge"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return server.NewInputRequestBuilder(strings.Repeat("s", 10<<20)).Roots("r").ToolResult(), nil
	})
	srv.AddTool(mcp.NewTool("weird"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("what am I")
		res.ResultType = "eventually"
		return res, nil
	})
	srv.AddTool(mcp.NewTool("task"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("")
		res.ResultType = ResultTask
		return res, nil
	})
	srv.AddPrompt(mcp.NewPrompt("greet"), func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if a := server.ElicitationResponse(r.Params.InputResponses, "name"); a != nil {
			return mcp.NewGetPromptResult("hi", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hello "+string(a.Action)))}), nil
		}
		return server.NewInputRequestBuilder("p").Elicit("name", form).PromptResult(), nil
	})
	return srv
}

// modern opens srv in process on the 2026-07-28 protocol, answering input with in.
func modern(t *testing.T, srv *server.MCPServer, in Inputs) *InProcess {
	t.Helper()
	h := Handlers{Input: in}
	h.Init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	s, err := OpenInProcess(context.Background(), srv, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	if !mcp.IsModernProtocol(s.Info().Protocol) {
		t.Fatalf("the connection speaks %q, not 2026-07-28", s.Info().Protocol)
	}
	return s
}

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result %+v", res)
	}
	return res.Content[0].(mcp.TextContent).Text
}

func TestInputRoundsToolCall(t *testing.T) {
	cases := []struct {
		tool    string
		want    string       // the result's text
		kind    InputErrKind // or the failure
		asked   int          // questions the user saw
		refused bool         // sampling was refused
	}{
		{tool: "ask", want: `accept state=opaque é "state"`, asked: 1},
		{tool: "roots", want: "file:///project"},
		{tool: "multi", want: "three rounds", asked: 3},
		{tool: "sample", kind: InputSampling, refused: true},
		{tool: "endless", kind: InputEndless},
		{tool: "shed", kind: InputEndless},
		{tool: "huge", kind: InputStateTooLarge},
		{tool: "weird", kind: InputUnknownResultType},
		{tool: "task", kind: InputUnexpectedTask},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			a := &accept{}
			refused := false
			s := modern(t, mrtrServer(t), Inputs{Elicit: a, Roots: rootsList{{URI: "file:///project"}}, SamplingRefused: func() { refused = true }})
			req := mcp.CallToolRequest{}
			req.Params.Name = c.tool
			res, err := s.CallTool(context.Background(), req)
			if c.kind != 0 {
				var ie *InputError
				if !errors.As(err, &ie) || ie.Kind != c.kind {
					t.Fatalf("got %v, %v; want an InputError of kind %d", res, err, c.kind)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if got := resultText(t, res); got != c.want {
					t.Errorf("result %q, want %q", got, c.want)
				}
			}
			if len(a.asked) != c.asked {
				t.Errorf("asked %q, want %d questions", a.asked, c.asked)
			}
			if refused != c.refused {
				t.Errorf("sampling refused: %v, want %v", refused, c.refused)
			}
		})
	}
}

func TestInputRoundsPrompt(t *testing.T) {
	a := &accept{}
	s := modern(t, mrtrServer(t), Inputs{Elicit: a})
	req := mcp.GetPromptRequest{}
	req.Params.Name = "greet"
	res, err := s.GetPrompt(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Content.(mcp.TextContent).Text != "hello accept" || len(a.asked) != 1 {
		t.Fatalf("prompt %+v, asked %q", res, a.asked)
	}
}

// TestInputRoundsNoQuestions: a question where none can be asked fails the call clearly.
func TestInputRoundsNoQuestions(t *testing.T) {
	s := modern(t, mrtrServer(t), Inputs{})
	req := mcp.CallToolRequest{}
	req.Params.Name = "ask"
	_, err := s.CallTool(context.Background(), req)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Kind != InputNoElicitation {
		t.Fatalf("got %v", err)
	}
}

// rawServer is a 2026-07-28 server over streamable HTTP (JSON answers) that answers each
// request with what answer returns, recording every request's params.
type rawServer struct {
	mu     sync.Mutex
	params []map[string]json.RawMessage
	ids    []string
}

func (rs *rawServer) handler(answer func(method string, params map[string]json.RawMessage) any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage            `json:"id"`
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		if req.Method == string(mcp.MethodServerDiscover) {
			result = map[string]any{"resultType": "complete", "supportedVersions": []string{mcp.LATEST_PROTOCOL_VERSION},
				"capabilities": map[string]any{"resources": map[string]any{}}, "serverInfo": map[string]any{"name": "raw", "version": "1"}}
		} else {
			rs.mu.Lock()
			rs.params = append(rs.params, req.Params)
			rs.ids = append(rs.ids, string(req.ID))
			rs.mu.Unlock()
			result = answer(req.Method, req.Params)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	})
}

// TestInputRoundsResourceRead: resources/read over streamable HTTP: the retry has a new
// id, the answers, and the requestState byte for byte; a second read starts afresh.
func TestInputRoundsResourceRead(t *testing.T) {
	rs := &rawServer{}
	const state = `"a\u00e9\/b"`
	hs := httptest.NewServer(rs.handler(func(method string, p map[string]json.RawMessage) any {
		if p["inputResponses"] == nil {
			return json.RawMessage(`{"resultType":"input_required","requestState":` + state + `,"inputRequests":{"r":{"method":"roots/list"}}}`)
		}
		return map[string]any{"resultType": "complete", "contents": []any{map[string]any{"uri": "x:/1", "text": "read"}}}
	}))
	defer hs.Close()
	tr, err := transport.NewStreamableHTTP(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	h := Handlers{Input: Inputs{Roots: rootsList{{URI: "file:///p"}}}}
	c := NewClient(tr, config.TransportStreamableHTTP, h)
	if err := c.Initialize(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	defer c.MCP().Close()
	for range 2 {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "x:/1"
		res, err := c.ReadResource(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("contents %+v", res.Contents)
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.params) != 4 {
		t.Fatalf("%d requests, want 4", len(rs.params))
	}
	for i, p := range rs.params {
		first := i%2 == 0
		if first != (p["requestState"] == nil) || first != (p["inputResponses"] == nil) {
			t.Errorf("request %d: state %s, responses %s", i, p["requestState"], p["inputResponses"])
		}
		if !first && string(p["requestState"]) != state {
			t.Errorf("retry %d: requestState %s, want %s", i, p["requestState"], state)
		}
		if !first && string(p["inputResponses"]) != `{"r":{"roots":[{"uri":"file:///p"}]}}` {
			t.Errorf("retry %d: inputResponses %s", i, p["inputResponses"])
		}
		if p["_meta"] == nil {
			t.Errorf("request %d has no _meta", i)
		}
	}
	if rs.ids[0] == rs.ids[1] || rs.ids[2] == rs.ids[3] {
		t.Errorf("ids %v: a retry must have its own", rs.ids)
	}
}
