package commands

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

type fakeServer struct {
	cfg      *config.Server
	st       Status
	pending  bool
	startErr error

	events testutil.EventLog
}

func (s *fakeServer) Config() *config.Server { return s.cfg }
func (s *fakeServer) Status() Status         { return s.st }
func (s *fakeServer) Pending() bool          { return s.pending }
func (s *fakeServer) NeedsApproval() bool    { return s.pending && s.cfg.Enabled }
func (s *fakeServer) ApprovalErr() error     { return errors.New(s.cfg.Name + " needs approval") }
func (s *fakeServer) RunsText() string       { return "runs `" + s.cfg.Raw.Command + "`" }
func (s *fakeServer) CommandLine() string    { return s.cfg.Raw.Command + " [masked]" }
func (s *fakeServer) URL() string            { return "" }
func (s *fakeServer) OAuthDetail() string    { return "" }
func (s *fakeServer) SkippedText() string    { return "" }
func (s *fakeServer) Redact(l string) string { return l }
func (s *fakeServer) Stop(context.Context)   { s.event("stop") }
func (s *fakeServer) Start(context.Context) error {
	s.event("start")
	return s.startErr
}

func (s *fakeServer) event(e string) { s.events.Add(e) }

func (s *fakeServer) log() string { return s.events.String() }

// fakeHost is a Host without processes: commands tests run on it in microseconds.
type fakeHost struct {
	servers   map[string]*fakeServer
	names     []string
	questions interact.Questions
	prompts   map[string][]cache.Prompt
	got       []string // GetPrompt calls
	wait      chan struct{}
	bg        sync.WaitGroup
	notes     chan string
	mode      string   // "" is deferred
	surface   Surface  // the zero value is zot
	failed    []string // what Refresh reports as failed
}

func newFakeHost(servers ...*fakeServer) *fakeHost {
	h := &fakeHost{servers: map[string]*fakeServer{}, prompts: map[string][]cache.Prompt{}, wait: make(chan struct{}), notes: make(chan string, 4)}
	for _, s := range servers {
		h.servers[s.cfg.Name] = s
		h.names = append(h.names, s.cfg.Name)
	}
	return h
}

func (h *fakeHost) Surface() Surface                { return h.surface }
func (h *fakeHost) Names() []string                 { return h.names }
func (h *fakeHost) Config() *config.Config          { return &config.Config{} }
func (h *fakeHost) CachePath() string               { return "/nonexistent/cache.json" }
func (h *fakeHost) ZotHome() string                 { return "/home/u/.zot" }
func (h *fakeHost) ProjectDir() string              { return "/p" }
func (h *fakeHost) LookupEnv(string) (string, bool) { return "", false }
func (h *fakeHost) Mode() (string, bool) {
	if h.mode != "" {
		return h.mode, h.mode == "deferred"
	}
	return "deferred", true
}
func (h *fakeHost) CachedTools() map[string]int           { return map[string]int{"fs": 3} }
func (h *fakeHost) MoreDetail(string) string              { return "" }
func (h *fakeHost) ToolChanges(string) *ToolChange        { return nil }
func (h *fakeHost) Note(level, text string)               { h.notes <- level + ": " + text }
func (h *fakeHost) Questions() *interact.Questions        { return &h.questions }
func (h *fakeHost) OpenURL(context.Context, string) error { return nil }
func (h *fakeHost) Prompts(server string) []cache.Prompt  { return h.prompts[server] }
func (h *fakeHost) CommandWait() (<-chan struct{}, func()) {
	return h.wait, func() {}
}
func (h *fakeHost) Background(f func(context.Context)) {
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		f(context.Background())
	}()
}
func (h *fakeHost) Server(name string) (Server, bool) {
	s, ok := h.servers[name]
	if !ok {
		return nil, false
	}
	return s, true
}
func (h *fakeHost) Refresh(_ context.Context, names []string) RefreshSummary {
	if len(h.failed) > 0 {
		return RefreshSummary{Failed: h.failed}
	}
	return RefreshSummary{Listed: len(names), Changed: names}
}
func (h *fakeHost) GetPrompt(_ context.Context, server, name string, args map[string]string) (string, error) {
	h.got = append(h.got, server+"/"+name+":"+args["topic"])
	return "Summarize " + args["topic"], nil
}
func (h *fakeHost) InZot() bool              { return false }
func (h *fakeHost) ListLater(names []string) { h.got = append(h.got, "list:"+strings.Join(names, ",")) }
func (h *fakeHost) Approve(_ context.Context, names []string) ([]string, error) {
	for _, n := range names {
		h.servers[n].pending = false
	}
	return names, nil
}
func (h *fakeHost) Revoke(_ context.Context, names, _ []string) ([]string, error) {
	for _, n := range names {
		h.servers[n].pending = true
	}
	return names, nil
}

func stdio(name string) *config.Server {
	return &config.Server{Name: name, Scope: config.ScopeGlobal, Enabled: true, Transport: config.TransportStdio,
		Raw: config.Raw{Command: "fs-server"}}
}

// TestCommandsOnFakeHost: the command language runs over Host alone — dispatch, the
// dashboard, lifecycle commands (answering at once, or by note when the wait runs out),
// prompts and answers — with no bridge and no process.
func TestCommandsOnFakeHost(t *testing.T) {
	ctx := context.Background()
	fs := &fakeServer{cfg: stdio("fs"), st: Status{State: StateReady, Tools: 3}}
	broken := &fakeServer{cfg: stdio("broken"), st: Status{State: StateParked, LastError: "exit status 1"}, startErr: errors.New("exit status 1")}
	proj := &fakeServer{cfg: stdio("proj"), st: Status{State: StateAsleep}, pending: true}
	proj.cfg.Scope = config.ScopeProject
	h := newFakeHost(broken, fs, proj)
	h.prompts["fs"] = []cache.Prompt{{Name: "summarize", Arguments: []cache.PromptArgument{{Name: "topic", Required: true}}}}

	t.Run("dashboard", func(t *testing.T) {
		out, err := Line(ctx, h, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"MCP servers (3) — mode: deferred", "fs ", "ready", "3 tools", "parked", "exit status 1", "needs approval", "approve: /mcp trust proj"} {
			if !strings.Contains(out, want) {
				t.Errorf("dashboard lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("server infos", func(t *testing.T) {
		infos := ServerInfos(h)
		if len(infos) != 3 || infos[1].Name != "fs" || infos[1].State != "enabled" || infos[1].Cache != CacheMissing || infos[1].Command != "fs-server" {
			t.Errorf("infos %+v", infos)
		}
		if info, ok := Info(h, "proj"); !ok || info.State != "needs approval" {
			t.Errorf("proj: %+v, %v", info, ok)
		}
		if _, ok := Info(h, "nope"); ok {
			t.Error("an unknown server has info")
		}
	})
	t.Run("unknown word suggests", func(t *testing.T) {
		_, err := Line(ctx, h, "strat")
		if err == nil || !strings.Contains(err.Error(), `Did you mean "start"`) {
			t.Errorf("error %v, want a suggestion of start", err)
		}
	})
	t.Run("start answers within the wait", func(t *testing.T) {
		out, err := Line(ctx, h, "start fs")
		if err != nil || !strings.Contains(out, "fs: ready, 3 tools") || fs.log() != "start" {
			t.Errorf("start fs = %q, %v; events %q", out, err, fs.log())
		}
	})
	t.Run("a failed start is an error", func(t *testing.T) {
		out, err := Line(ctx, h, "start broken")
		if err == nil || !strings.Contains(out, "broken: failed: exit status 1") {
			t.Errorf("start broken = %q, %v", out, err)
		}
	})
	t.Run("pending server is refused", func(t *testing.T) {
		if _, err := Line(ctx, h, "start proj"); err == nil || !strings.Contains(err.Error(), "proj needs approval") {
			t.Errorf("start proj: %v", err)
		}
	})
	t.Run("refresh reports by note after the wait", func(t *testing.T) {
		close(h.wait) // the command's wait is over at once
		out, err := Line(ctx, h, "refresh fs")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "still running") {
			if note := <-h.notes; !strings.Contains(note, "Refreshed 1 of 1") {
				t.Errorf("note %q", note)
			}
		} else if !strings.Contains(out, "Refreshed 1 of 1") {
			t.Errorf("refresh fs = %q", out)
		}
		h.bg.Wait()
	})
	t.Run("prompt checks arguments before fetching", func(t *testing.T) {
		r := Run(ctx, h, extension.Command{Name: Name, Args: "prompt fs summarize"})
		if r.Error == "" || !strings.Contains(r.Error, "needs topic") || len(h.got) != 0 {
			t.Errorf("missing argument: %+v, fetched %v", r, h.got)
		}
		r = Run(ctx, h, extension.Command{Name: Name, Args: `prompt fs summarize topic="two words"`})
		if r.Action != "prompt" || r.Prompt != "Summarize two words" {
			t.Errorf("prompt: %+v", r)
		}
	})
	t.Run("trust lists, approves and withdraws", func(t *testing.T) {
		if out, _ := Line(ctx, h, "trust"); !strings.Contains(out, "proj: runs `fs-server`") {
			t.Errorf("trust list %q", out)
		}
		if _, err := Line(ctx, h, "trust fs"); err == nil || !strings.Contains(err.Error(), "global file") {
			t.Errorf("trust of a global server: %v", err)
		}
		out, err := Line(ctx, h, "trust proj")
		if err != nil || proj.pending || !strings.Contains(out, "Approved for /p") || !strings.Contains(out, "listed on the next zot start") {
			t.Errorf("trust proj = %q, %v (pending %v)", out, err, proj.pending)
		}
		if out, err := Line(ctx, h, "untrust proj"); err != nil || !proj.pending || !strings.Contains(out, "Withdrew the approval of proj for /p") {
			t.Errorf("untrust proj = %q, %v", out, err)
		}
	})
	t.Run("answer reaches the waiting question", func(t *testing.T) {
		q, err := interact.NewElicitation("fs", mcp.ElicitationParams{Message: "Name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		oq, _, err := h.questions.Add(q, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Line(ctx, h, "answer 1 name=Ada Lovelace")
		if err != nil || !strings.Contains(out, `Sent your answer to MCP server "fs" (request 1)`) {
			t.Fatalf("answer = %q, %v", out, err)
		}
		// The first answer wins; the server has not read it yet.
		if _, err := Line(ctx, h, "decline 1"); err == nil || !strings.Contains(err.Error(), "already answered") {
			t.Errorf("a second answer: %v", err)
		}
		res := <-oq.Replies()
		if c, _ := res.Content.(map[string]any); res.Action != mcp.ElicitationResponseActionAccept || c["name"] != "Ada Lovelace" {
			t.Errorf("reply %+v", res)
		}
	})
}
