package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// listen serves f's server behind the guard on 127.0.0.1 and returns its URL.
func (f *fixture) listen() string {
	f.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := ListenGuarded(ctx, "127.0.0.1:0", false, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	path := "/mcp/" + NewSecret()
	h := Guard(f.srv.HTTPHandler(), GuardOptions{Path: path, Addr: ln.Addr().String()})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, ln, h, ServerOptions{})
	}()
	f.t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + ln.Addr().String() + path
}

// httpClient connects to url in the era of version ("" : the newest, 2026-07-28) with a
// for its user and model.
func httpClient(t *testing.T, url, version string, a *asker, notes func(mcp.JSONRPCNotification)) *client.Client {
	t.Helper()
	var topts []transport.StreamableHTTPCOption
	if version != "" {
		// mcp-go's server sends a 2025-11-25 client its sampling requests on the GET
		// stream only (elicitation also on the call's own stream).
		//lint:ignore SA1019 mcp-go's server sends a 2025-11-25 client its sampling requests on the GET stream
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithElicitationHandler(a), client.WithSamplingHandler(a)}
	if version != "" {
		opts = append(opts, client.WithProtocolVersion(version))
	}
	c := client.NewClient(tr, opts...)
	if notes != nil {
		c.OnNotification(notes)
	}
	ctx := testCtx(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	if version == "" {
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	}
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	init.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
	init.Params.Capabilities.Sampling = &mcp.SamplingCapability{}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize %s: %v", version, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestServeHTTPEras: over HTTP, a 2025-11-25 client and a 2026-07-28 client each call a
// tool, answer a server's question (a server request, or an input_required result and
// a retry) and its sampling request, and get progress under their own token.
func TestServeHTTPEras(t *testing.T) {
	t.Parallel()
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""} {
		name := version
		if name == "" {
			name = mcp.LATEST_PROTOCOL_VERSION
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Options{Tools: ToolsAll, Unprefixed: true}, "alpha")
			url := f.listen()
			a := &asker{answer: map[string]any{"colour": "red"}}
			progress := make(chan string, 8)
			c := httpClient(t, url, version, a, func(n mcp.JSONRPCNotification) {
				if n.Method == string(mcp.MethodNotificationProgress) {
					raw, _ := json.Marshal(n.Params.AdditionalFields)
					progress <- string(raw)
					if len(progress) == 3 {
						close(f.backends["alpha"].progressSeen)
					}
				}
			})
			if text, _ := callText(t, c, "echo", map[string]any{"text": "hi"}); text != "alpha: hi" {
				t.Fatalf("echo = %q", text)
			}
			if text, _ := callText(t, c, "poem", nil); text != "poem: roses" {
				t.Fatalf("poem = %q (asked %q)", text, a.asked)
			}
			if text, _ := callText(t, c, "ask", nil); text != `accept {"colour":"red"}` {
				t.Fatalf("ask = %q (asked %q)", text, a.asked)
			}
			// Resources and prompts reach the server from an HTTP request too (nothing of
			// the request's transport goes down with them).
			rr := mcp.ReadResourceRequest{}
			rr.Params.URI = "test://readme"
			if res, err := c.ReadResource(testCtx(t), rr); err != nil || res.Contents[0].(mcp.TextResourceContents).Text != "alpha readme" {
				t.Fatalf("read = %+v, %v", res, err)
			}
			gp := mcp.GetPromptRequest{}
			gp.Params.Name = "greet"
			gp.Params.Arguments = map[string]string{"who": "bo"}
			if pr, err := c.GetPrompt(testCtx(t), gp); err != nil || textOf(pr.Messages[0].Content) != "hello bo" {
				t.Fatalf("prompt = %+v, %v", pr, err)
			}
			req := mcp.CallToolRequest{}
			req.Params.Name = "count"
			req.Params.Meta = &mcp.Meta{ProgressToken: "tok-" + name}
			if _, err := c.CallTool(testCtx(t), req); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if p := <-progress; !strings.Contains(p, `"progressToken":"tok-`+name+`"`) {
					t.Fatalf("progress %s, want the client's token", p)
				}
			}
		})
	}
}

// TestServeUnansweredQuestion: a question whose answer never comes ends its call once
// AnswerWait passes on the injected clock (the server's call is given up, not kept
// forever), and a late retry is told the question is no longer open.
func TestServeUnansweredQuestion(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake()
	f := newFixtureClock(t, Options{Tools: ToolsAll, Unprefixed: true, AnswerWait: DefaultAnswerWait}, fake, "alpha")
	url := f.listen()
	// A 2026-07-28 request by hand: the input_required result comes back and nobody
	// retries.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	res := post(t, url, body)
	var first struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(res), &first); err != nil || first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
		t.Fatalf("first answer %s, want input_required with a requestState", res)
	}
	if n := f.srv.calls.count(); n != 1 {
		t.Fatalf("%d calls waiting, want 1", n)
	}
	testutil.AdvanceWhenWaiting(testCtx(t), t, fake, DefaultAnswerWait)
	testutil.WaitFor(testCtx(t), t, "the unanswered call to end", func() bool { return f.srv.calls.count() == 0 })
	retry := strings.Replace(body, `"arguments":{},`, `"arguments":{},"requestState":"`+first.Result.RequestState+
		`","inputResponses":{"q":{"action":"accept","content":{"colour":"red"}}},`, 1)
	if res := post(t, url, retry); !strings.Contains(res, "no longer open") {
		t.Fatalf("late retry answered %s, want the question no longer open", res)
	}
}

// post sends one JSON-RPC request and returns the body of the answer (a JSON object, or
// the data of its one event).
func post(t *testing.T, url, body string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "ask")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	out := sb.String()
	if i := strings.Index(out, "data: "); i >= 0 {
		out = out[i+len("data: "):]
		if j := strings.Index(out, "\n"); j >= 0 {
			out = out[:j]
		}
	}
	return out
}
