package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// backend is an in-process MCP server behind the bridge: tools that echo, report
// progress, log, ask their client (both eras' ways), and wait to be cancelled;
// resources, a template and prompts.
type backend struct {
	srv       *server.MCPServer
	cancelled chan string // tools whose calls were cancelled
	// progressSeen is closed by a test once its client has the count tool's progress.
	progressSeen chan struct{}
	// logSeen is closed by a test once its client has the chatty tool's log line.
	logSeen chan struct{}
}

func newBackend(name string) *backend {
	b := &backend{cancelled: make(chan string, 8), progressSeen: make(chan struct{}), logSeen: make(chan struct{})}
	b.srv = server.NewMCPServer(name, "1.0", server.WithToolCapabilities(true), server.WithResourceCapabilities(false, true),
		server.WithPromptCapabilities(true), server.WithLogging(), server.WithCompletions(),
		server.WithPromptCompletionProvider(fixedCompletions{}))
	b.srv.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back"), mcp.WithString("text", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := mcp.NewToolResultText(name + ": " + r.GetString("text", ""))
			res.StructuredContent = map[string]any{"text": r.GetString("text", "")}
			return res, nil
		})
	b.srv.AddTool(mcp.NewTool("count", mcp.WithDescription("Count to three, reporting progress and logging each step")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv := server.ServerFromContext(ctx)
			for i := 1; i <= 3; i++ {
				if r.Params.Meta != nil && r.Params.Meta.ProgressToken != nil {
					_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
						map[string]any{"progressToken": r.Params.Meta.ProgressToken, "progress": i, "total": 3, "message": "step"})
				}
			}
			// In process, a notification may come after the result it precedes: the
			// call ends once the client has seen its progress.
			select {
			case <-b.progressSeen:
			case <-ctx.Done():
			}
			return mcp.NewToolResultText("counted"), nil
		})
	b.srv.AddTool(mcp.NewTool("ask", mcp.WithDescription("Ask the user for a colour")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a := server.ElicitationResponse(r.Params.InputResponses, "colour"); a != nil {
				raw, _ := json.Marshal(a.Content)
				return mcp.NewToolResultText(string(a.Action) + " " + string(raw)), nil
			}
			return server.NewInputRequestBuilder("asked").Elicit("colour", mcp.ElicitationParams{Message: "Which colour?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"colour": map[string]any{"type": "string", "enum": []string{"red", "blue"}}}}}).ToolResult(), nil
		})
	b.srv.AddTool(mcp.NewTool("poem", mcp.WithDescription("Have the client's model write a poem")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a := server.SamplingResponse(r.Params.InputResponses, "poem"); a != nil {
				return mcp.NewToolResultText("poem: " + textOf(a.Content)), nil
			}
			return server.NewInputRequestBuilder("").Sample("poem", mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("a poem")}}}).ToolResult(), nil
		})
	b.srv.AddTool(mcp.NewTool("chatty", mcp.WithDescription("Log a line, then answer once the client has it")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv := server.ServerFromContext(ctx)
			_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, "db", "disk \x1b[31mnearly\x1b[0m full"))
			select {
			case <-b.logSeen:
			case <-ctx.Done():
			}
			return mcp.NewToolResultText("said"), nil
		})
	b.srv.AddTool(mcp.NewTool("hang", mcp.WithDescription("Wait until cancelled")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			b.cancelled <- "hang"
			return nil, ctx.Err()
		})
	b.srv.AddResource(mcp.NewResource("test://readme", "readme", mcp.WithMIMEType("text/plain")),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: name + " readme"}}, nil
		})
	b.srv.AddResourceTemplate(mcp.NewResourceTemplate("test://item/{id}", "item"),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, Text: "item " + strings.TrimPrefix(r.Params.URI, "test://item/")}}, nil
		})
	b.srv.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greet someone"), mcp.WithArgument("who", mcp.RequiredArgument())),
		func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hello "+r.Params.Arguments["who"]))}), nil
		})
	return b
}

type fixedCompletions struct{}

func (fixedCompletions) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{prompt + "/" + arg.Name + "/" + arg.Value + "-done"}}, nil
}

func textOf(c any) string {
	if t, ok := c.(mcp.TextContent); ok {
		return t.Text
	}
	if m, ok := c.(map[string]any); ok && m["type"] == "text" {
		s, _ := m["text"].(string)
		return s
	}
	raw, _ := json.Marshal(c)
	return string(raw)
}

// fixture is a bridge home with the named backends configured, and a Server over them.
type fixture struct {
	t        *testing.T
	backends map[string]*backend
	srv      *Server
}

func newFixture(t *testing.T, o Options, names ...string) *fixture {
	t.Helper()
	return newFixtureClock(t, o, clock.System{}, names...)
}

// newFixtureClock is newFixture on the clock c.
func newFixtureClock(t *testing.T, o Options, c clock.Clock, names ...string) *fixture {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	f := &fixture{t: t, backends: map[string]*backend{}}
	doc := map[string]any{}
	for _, n := range names {
		f.backends[n] = newBackend(n)
		doc[n] = map[string]any{"command": "in-process"}
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": doc})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	connect := func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
		b, ok := f.backends[cfg.Name]
		if !ok {
			return nil, errors.New("no backend " + cfg.Name)
		}
		h.Init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION // era negotiation is session's
		return session.OpenInProcess(ctx, b.srv, h)
	}
	o.ProjectDir = project
	o.Bridge = bridge.Options{ZotHome: home, LookupEnv: func(string) (string, bool) { return "", false }, Clock: c,
		Log: zerolog.New(testutil.Log(t)), Resolver: noDNS(), Connect: connect, Surface: commands.SurfaceCLI}
	srv, err := New(testCtx(t), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.srv = srv
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Close(ctx)
	})
	return f
}

func noDNS() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server in tests")
	}}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// asker answers the questions a client is asked, and records them.
type asker struct {
	mu     sync.Mutex
	asked  []string
	answer map[string]any
}

func (a *asker) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params.Message)
	a.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: a.answer}}, nil
}

func (a *asker) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, "sampling: "+textOf(req.Messages[0].Content))
	a.mu.Unlock()
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("roses")}, Model: "test"}, nil
}

// connect is an initialized in-process client of the fixture's server that answers
// questions with a.
func (f *fixture) connect(a *asker, notes func(mcp.JSONRPCNotification)) *client.Client {
	f.t.Helper()
	if a == nil {
		a = &asker{}
	}
	c, err := client.NewInProcessClientWithOptions(f.srv.mcp, client.WithElicitationHandler(a), client.WithSamplingHandler(a))
	if err != nil {
		f.t.Fatal(err)
	}
	if notes != nil {
		c.OnNotification(notes)
	}
	ctx := testCtx(f.t)
	if err := c.Start(ctx); err != nil {
		f.t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	init.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
	init.Params.Capabilities.Sampling = &mcp.SamplingCapability{}
	if _, err := c.Initialize(ctx, init); err != nil {
		f.t.Fatalf("initialize: %v", err)
	}
	f.t.Cleanup(func() { _ = c.Close() })
	return c
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(testCtx(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func callText(t *testing.T, c *client.Client, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(testCtx(t), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var sb strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res
}

// TestServeToolSets: --tools all lists every cached tool, named as in zot or (with
// --prefix none) as the servers name them; --tools search lists the search and call
// tools only; a call goes to the right server and comes back as that server answered.
func TestServeToolSets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    Options
		servers []string
		want    []string
		call    string
		args    any
		reply   string
	}{
		{name: "all, names as in zot", opts: Options{Tools: ToolsAll}, servers: []string{"alpha", "beta"},
			want: []string{"mcp__alpha__ask", "mcp__alpha__chatty", "mcp__alpha__count", "mcp__alpha__echo", "mcp__alpha__hang", "mcp__alpha__poem",
				"mcp__beta__ask", "mcp__beta__chatty", "mcp__beta__count", "mcp__beta__echo", "mcp__beta__hang", "mcp__beta__poem"},
			call: "mcp__beta__echo", args: map[string]any{"text": "hi"}, reply: "beta: hi"},
		{name: "all, the servers' own names", opts: Options{Tools: ToolsAll, Unprefixed: true}, servers: []string{"alpha"},
			want: []string{"ask", "chatty", "count", "echo", "hang", "poem"}, call: "echo", args: map[string]any{"text": "hi"}, reply: "alpha: hi"},
		{name: "search", opts: Options{}, servers: []string{"alpha", "beta"},
			want: []string{CallTool, SearchTool},
			call: CallTool, args: map[string]any{"server": "alpha", "tool": "echo", "arguments": map[string]any{"text": "yo"}}, reply: "alpha: yo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tt.opts, tt.servers...)
			c := f.connect(nil, nil)
			if got := toolNames(t, c); !slices.Equal(got, tt.want) {
				t.Fatalf("tools %q, want %q", got, tt.want)
			}
			text, res := callText(t, c, tt.call, tt.args)
			if text != tt.reply || res.IsError {
				t.Fatalf("call %s = %q (error %v), want %q", tt.call, text, res.IsError, tt.reply)
			}
			if tt.call != CallTool {
				raw, _ := json.Marshal(res.StructuredContent)
				if !strings.Contains(string(raw), `"text":"hi"`) {
					t.Errorf("structured content %s, want the server's", raw)
				}
			}
		})
	}
}

// TestServeUnprefixedCollision: --prefix none is refused when two servers name a tool
// alike, naming the tools.
func TestServeUnprefixedCollision(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	raw := `{"mcpServers":{"a":{"command":"in-process"},"b":{"command":"in-process"}}}`
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	backs := map[string]*backend{"a": newBackend("a"), "b": newBackend("b")}
	connect := func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
		h.Init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		return session.OpenInProcess(ctx, backs[cfg.Name].srv, h)
	}
	_, err := New(testCtx(t), Options{Tools: ToolsAll, Unprefixed: true, ProjectDir: project, Bridge: bridge.Options{ZotHome: home,
		LookupEnv: func(string) (string, bool) { return "", false }, Log: zerolog.Nop(), Resolver: noDNS(), Connect: connect, Surface: commands.SurfaceCLI}})
	var ce *CollisionError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"echo" (servers a and b)`) {
		t.Fatalf("err = %v, want a CollisionError naming echo", err)
	}
}

// TestServeSearchActivates: a search answers with the tools found, lists them directly
// afterwards and tells the client its tool list changed.
func TestServeSearchActivates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, "alpha")
	changed := make(chan struct{}, 4)
	c := f.connect(nil, func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	})
	text, _ := callText(t, c, SearchTool, map[string]any{"query": "echo text back"})
	if !strings.Contains(text, `tool="echo"`) || !strings.Contains(text, CallTool) || strings.Contains(text, bridge.CallToolName) {
		t.Fatalf("search answer %q, want echo with %s (and not zot's tool names)", text, CallTool)
	}
	select {
	case <-changed:
	case <-testCtx(t).Done():
		t.Fatal("no tools/list_changed after the search")
	}
	if got := toolNames(t, c); !slices.Contains(got, "mcp__alpha__echo") {
		t.Fatalf("tools after search %q, want mcp__alpha__echo among them", got)
	}
	text, _ = callText(t, c, "mcp__alpha__echo", map[string]any{"text": "direct"})
	if text != "alpha: direct" {
		t.Fatalf("activated tool answered %q", text)
	}
}

// TestServePassesThrough: progress reaches the client under its own token; a server's
// question reaches the client's user and the answer goes back; a server's sampling
// request reaches the client's model; a client that cancels cancels the server's call.
func TestServePassesThrough(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Tools: ToolsAll, Unprefixed: true}, "alpha")
	var mu sync.Mutex
	var progress, logs []string
	a := &asker{answer: map[string]any{"colour": "blue"}}
	c := f.connect(a, func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationMessage) {
			raw, _ := json.Marshal(n.Params.AdditionalFields)
			mu.Lock()
			logs = append(logs, string(raw))
			close(f.backends["alpha"].logSeen)
			mu.Unlock()
		}
		if n.Method == string(mcp.MethodNotificationProgress) {
			raw, _ := json.Marshal(n.Params.AdditionalFields)
			mu.Lock()
			progress = append(progress, string(raw))
			if len(progress) == 3 {
				close(f.backends["alpha"].progressSeen)
			}
			mu.Unlock()
		}
	})
	t.Run("progress", func(t *testing.T) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "count"
		req.Params.Meta = &mcp.Meta{ProgressToken: "client-token-7"}
		if _, err := c.CallTool(testCtx(t), req); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(progress) != 3 || !strings.Contains(progress[2], `"progressToken":"client-token-7"`) || !strings.Contains(progress[2], `"progress":3`) {
			t.Fatalf("progress %q, want 3 notes under the client's token", progress)
		}
	})
	t.Run("log", func(t *testing.T) {
		//lint:ignore SA1019 a 2025-11-25 client sets its log level for the session
		if err := c.SetLevel(testCtx(t), mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
			t.Fatal(err)
		}
		if text, _ := callText(t, c, "chatty", nil); text != "said" {
			t.Fatalf("chatty = %q", text)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(logs) != 1 || !strings.Contains(logs[0], `"logger":"alpha/db"`) || !strings.Contains(logs[0], `"level":"warning"`) || strings.Contains(logs[0], `\u001b`) || !strings.Contains(logs[0], "nearly") {
			t.Fatalf("log lines %q, want the server's line, its terminal escapes gone", logs)
		}
	})
	t.Run("question", func(t *testing.T) {
		text, _ := callText(t, c, "ask", nil)
		if text != `accept {"colour":"blue"}` {
			t.Fatalf("ask = %q", text)
		}
		if a.asked[0] != "Which colour?" {
			t.Fatalf("asked %q", a.asked)
		}
	})
	t.Run("sampling", func(t *testing.T) {
		text, _ := callText(t, c, "poem", nil)
		if text != "poem: roses" {
			t.Fatalf("poem = %q (asked %q)", text, a.asked)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(testCtx(t))
		done := make(chan error, 1)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "hang"
			_, err := c.CallTool(ctx, req)
			done <- err
		}()
		testutil.WaitFor(testCtx(t), t, "the call to reach the server", func() bool { return f.srv.calls.count() == 1 })
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled call returned no error")
		}
		select {
		case <-f.backends["alpha"].cancelled:
		case <-testCtx(t).Done():
			t.Fatal("the server's call was not cancelled")
		}
	})
}

// TestServeExtras: resources, templates and prompts are served under their server's
// prefix (or as they are with --prefix none); reading, getting and completing reach the
// server.
func TestServeExtras(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       Options
		uri, item  string
		prompt     string
		wantPrefix string
	}{
		{name: "prefixed", opts: Options{Tools: ToolsAll}, uri: "mcp-bridge://alpha/test://readme", item: "mcp-bridge://alpha/test://item/42", prompt: "alpha__greet"},
		{name: "unprefixed", opts: Options{Tools: ToolsAll, Unprefixed: true}, uri: "test://readme", item: "test://item/42", prompt: "greet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tt.opts, "alpha")
			c := f.connect(nil, nil)
			ctx := testCtx(t)
			lr, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil || len(lr.Resources) != 1 || lr.Resources[0].URI != tt.uri {
				t.Fatalf("resources %+v (%v), want %s", lr, err, tt.uri)
			}
			rr := mcp.ReadResourceRequest{}
			rr.Params.URI = tt.uri
			res, err := c.ReadResource(ctx, rr)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if tc := res.Contents[0].(mcp.TextResourceContents); tc.Text != "alpha readme" || tc.URI != tt.uri {
				t.Fatalf("read %+v", tc)
			}
			rr.Params.URI = tt.item
			res, err = c.ReadResource(ctx, rr)
			if err != nil {
				t.Fatalf("read template: %v", err)
			}
			if tc := res.Contents[0].(mcp.TextResourceContents); tc.Text != "item 42" {
				t.Fatalf("read template %+v", tc)
			}
			gp := mcp.GetPromptRequest{}
			gp.Params.Name = tt.prompt
			gp.Params.Arguments = map[string]string{"who": "ada"}
			pr, err := c.GetPrompt(ctx, gp)
			if err != nil || textOf(pr.Messages[0].Content) != "hello ada" {
				t.Fatalf("prompt %+v (%v)", pr, err)
			}
			cr := mcp.CompleteRequest{}
			cr.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: tt.prompt}
			cr.Params.Argument.Name, cr.Params.Argument.Value = "who", "a"
			comp, err := c.Complete(ctx, cr)
			if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "greet/who/a-done" {
				t.Fatalf("complete %+v (%v)", comp, err)
			}
		})
	}
}

// count is how many calls are in flight.
func (cb *callBoard) count() int {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.byID)
}

// TestServeWordsForItsUsers: what serve's tools say names the commands its user types
// (mcp-bridge setup, a restart of serve), never zot's /mcp or /reload-ext.
func TestServeWordsForItsUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	c := f.connect(nil, nil)
	text, _ := callText(t, c, SearchTool, map[string]any{"query": "anything"})
	if !strings.Contains(text, "mcp-bridge setup add <template>") || !strings.Contains(text, "restart mcp-bridge serve") ||
		strings.Contains(text, "/mcp") || strings.Contains(text, "/reload-ext") {
		t.Fatalf("search answered %q, want serve's commands", text)
	}
	res, err := c.ListTools(testCtx(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if strings.Contains(tl.Description, "/mcp") || strings.Contains(tl.Description, "mcp__") {
			t.Errorf("%s's description names zot's commands or tools: %q", tl.Name, tl.Description)
		}
	}
}

// TestServeQuestionsWithoutCapability: a client that declared no elicitation or sampling
// is not left holding a question it cannot answer: the server hears at once that nobody
// answers (its question is cancelled, its sampling request fails), and no call waits.
func TestServeQuestionsWithoutCapability(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Tools: ToolsAll, Unprefixed: true}, "alpha")
	c, err := client.NewInProcessClient(f.srv.mcp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "plain", Version: "1"}
	if _, err := c.Initialize(testCtx(t), init); err != nil {
		t.Fatal(err)
	}
	if text, _ := callText(t, c, "ask", nil); !strings.HasPrefix(text, "cancel") {
		t.Fatalf("ask = %q, want the question cancelled", text)
	}
	if text, res := callText(t, c, "poem", nil); !res.IsError || !strings.Contains(text, "sampling") {
		t.Fatalf("poem = %q (error %v), want a failed sampling request", text, res.IsError)
	}
	if n := f.srv.calls.count(); n != 0 {
		t.Fatalf("%d calls still wait", n)
	}
}

// TestServeCallBudget: a forwarded call may run as long as DefaultCallBudget (no host
// ends it sooner), and is given up then, on the injected clock, with the server's
// call cancelled.
func TestServeCallBudget(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake()
	f := newFixtureClock(t, Options{Tools: ToolsAll, Unprefixed: true}, fake, "alpha")
	c := f.connect(nil, nil)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "hang"
		res, err := c.CallTool(testCtx(t), req)
		done <- answer{res, err}
	}()
	testutil.AdvanceWhenWaiting(testCtx(t), t, fake, DefaultCallBudget)
	// A request past its deadline is given up after the settle grace (lifecycle).
	testutil.AdvanceWhenWaiting(testCtx(t), t, fake, lifecycle.SettleGrace)
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("the call failed as a request: %v", a.err)
		}
		text := textOf(a.res.Content[0])
		if !a.res.IsError || !strings.Contains(text, "hang did not answer before") {
			t.Fatalf("the call ended with %q (error %v), want the budget named", text, a.res.IsError)
		}
	case <-testCtx(t).Done():
		t.Fatal("the call did not end at its budget")
	}
	select {
	case <-f.backends["alpha"].cancelled:
	case <-testCtx(t).Done():
		t.Fatal("the server's call was not cancelled at the budget")
	}
}

// TestServeWordsPendingServers: a project server awaiting approval is named in a search's
// answer with the command serve's user types to approve it, not zot's /mcp trust.
func TestServeWordsPendingServers(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".zot"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".zot", "mcp.json"), []byte(`{"mcpServers":{"proj":{"command":"in-process"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := New(testCtx(t), Options{ProjectDir: project, Bridge: bridge.Options{ZotHome: home,
		LookupEnv: func(string) (string, bool) { return "", false }, Log: zerolog.Nop(), Resolver: noDNS(),
		Connect: func(context.Context, *config.Server, session.Handlers) (session.Session, error) {
			return nil, errors.New("a pending server must not be started")
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	c, err := client.NewInProcessClient(srv.mcp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(testCtx(t), init); err != nil {
		t.Fatal(err)
	}
	text, _ := callText(t, c, SearchTool, map[string]any{"query": "anything at all"})
	if !strings.Contains(text, "mcp-bridge trust") || strings.Contains(text, "/mcp") {
		t.Fatalf("search answered %q, want serve's trust command", text)
	}
}
