package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// The tool sets a client can be shown (--tools).
const (
	// ToolsSearch shows the search and call tools, and the tools a search found.
	ToolsSearch = "search"
	// ToolsAll shows every cached tool directly.
	ToolsAll = "all"
)

// The search and call tools' names as the clients see them: a client prefixes them with
// the name it gives this server (Claude Code: mcp__mcp-bridge__search_tools).
const (
	SearchTool = "search_tools"
	CallTool   = "call_tool"
)

// Options configure a Server.
type Options struct {
	// Bridge are the engine's options (ZOT_HOME, the log, the supervisor, the clock...);
	// serve sets its Front, Mode, Surface and Sampler.
	Bridge bridge.Options
	// ProjectDir is the project whose servers are served (project files need the
	// user's approval exactly as in zot).
	ProjectDir string
	// Tools is ToolsSearch (default) or ToolsAll.
	Tools string
	// Unprefixed: tools, prompts and resources keep their servers' own names and URIs
	// (--prefix none); refused when two servers' names collide.
	Unprefixed bool
	// Version is this server's version in initialize and server/discover.
	Version string
	// AnswerWait is how long a call that asked its client a question keeps the question
	// open for the answer (default DefaultAnswerWait).
	AnswerWait time.Duration
}

// DefaultAnswerWait is how long a backend's question waits for the client's answer.
const DefaultAnswerWait = 10 * time.Minute

// DefaultCallBudget bounds one forwarded call, a cold start included (zot's calls get
// less: its host ends a tool call sooner).
const DefaultCallBudget = 10 * time.Minute

// ListWait bounds the first listing of servers without a fresh cache entry at start.
const ListWait = 2 * time.Minute

// Server is the bridge's catalog as one MCP server: the same engine as the zot
// extension (bridge.Bridge) behind mcp-go's server. Safe for concurrent use; Close ends it.
type Server struct {
	o   Options
	b   *bridge.Bridge
	mcp *server.MCPServer
	log zerolog.Logger

	mu sync.Mutex
	// activated are the entries searches found (search mode), by the name shown.
	activated map[string]bool
	// toolsKey is what the tools last set on the MCP server were, to skip a change that
	// changes nothing (no list_changed).
	toolsKey string
	// extrasKey is what the resources and prompts were last built from.
	extrasKey string

	calls *callBoard
	tasks *taskBoard

	// syncMu makes one sync at a time (New's, then follow's).
	syncMu sync.Mutex
	// changed says the catalog changed since the last sync; stopped ends follow.
	changed   chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once
}

// New loads the configuration and the cache, lists the servers whose cache entry is
// missing or due (within ListWait), and builds the MCP server over them. The returned
// Server runs no transport yet: ServeStdio or HTTPHandler.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Tools == "" {
		o.Tools = ToolsSearch
	}
	if err := CheckTools(o.Tools, o.Unprefixed); err != nil {
		return nil, err
	}
	if o.AnswerWait <= 0 {
		o.AnswerWait = DefaultAnswerWait
	}
	s := &Server{o: o, log: o.Bridge.Log, activated: map[string]bool{}, changed: make(chan struct{}, 1), stopped: make(chan struct{}),
		tasks: newTaskBoard()}
	s.calls = newCallBoard(o.Bridge.Clock, o.AnswerWait)
	s.mcp = server.NewMCPServer(bridge.ExtensionName, o.Version, append(s.tasks.hooks(),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithElicitation(),
		server.WithPromptCompletionProvider(completer{s}),
		server.WithResourceCompletionProvider(completer{s}),
		server.WithInstructions(instructions(o.Tools)),
		// A client may run any served call as a task (2025-11-25): mcp-go keeps the
		// task, the call runs as any other.
		server.WithTaskCapabilities(true, true, true),
	)...)
	bo := o.Bridge
	if bo.CallBudget <= 0 {
		// No host's deadline to answer within: a call may take as long as its client
		// waits, up to this.
		bo.CallBudget = DefaultCallBudget
	}
	bo.Front = frontHooks{s}
	bo.Mode = bridge.ModeProxy
	bo.Surface = commands.SurfaceServe
	bo.Sampler = func(server string) client.SamplingHandler { return sampler{s.calls, server} }
	s.b = bridge.New(bo)
	s.b.Load(o.ProjectDir, extension.GenNew)
	if stale := s.b.StaleServers(); len(stale) > 0 {
		clk := o.Bridge.Clock
		if clk == nil {
			clk = clock.System{}
		}
		lctx, cancel := clock.WithTimeout(ctx, clk, ListWait)
		rep := s.b.RefreshEach(lctx, stale, nil)
		cancel()
		for _, f := range rep.Failed {
			s.log.Warn().Str("error", f).Msg("listing a server at start failed; its cached tools (if any) are served, and a restart of serve lists it again")
		}
	}
	if err := s.sync(ctx); err != nil {
		s.b.Close(ctx)
		return nil, err
	}
	// The listing above changed the catalog too: what it announced is synced already.
	select {
	case <-s.changed:
	default:
	}
	go s.follow()
	return s, nil
}

// CheckTools says whether tools (ToolsSearch or ToolsAll) and unprefixed (--prefix none)
// make a tool set New accepts, for a caller that checks its flags before it starts
// anything.
func CheckTools(tools string, unprefixed bool) error {
	if tools != ToolsSearch && tools != ToolsAll {
		return fmt.Errorf("--tools %q: use %q (the search and call tools) or %q (every cached tool)", tools, ToolsSearch, ToolsAll)
	}
	if unprefixed && tools != ToolsAll {
		return fmt.Errorf("--prefix none needs --tools %s: the search tool's results name tools by server", ToolsAll)
	}
	return nil
}

// follow syncs the served lists after each change of the bridge's catalog, one sync at
// a time (changes that come during one are one more sync), until Close.
func (s *Server) follow() {
	for {
		select {
		case <-s.changed:
			if err := s.sync(context.Background()); err != nil {
				s.log.Warn().Err(err).Msg("the served tools could not follow a catalog change")
			}
		case <-s.stopped:
			return
		}
	}
}

// instructions tell the client's model how to use the tools.
func instructions(tools string) string {
	if tools == ToolsAll {
		return "Every tool of the user's MCP servers is listed here; servers start when a tool is first called."
	}
	return "The user's MCP servers' tools are found with " + SearchTool + " (describe the task in a few words) and called with " + CallTool + "; the tools a search finds are also listed directly."
}

// Close stops every server the bridge started, within ctx.
func (s *Server) Close(ctx context.Context) {
	s.closeOnce.Do(func() { close(s.stopped) })
	s.calls.closeAll()
	s.b.Close(ctx)
}

// sync sets the tools, resources, templates and prompts from the current catalog.
func (s *Server) sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	cat, err := s.b.WaitCatalog(ctx)
	if err != nil {
		return err
	}
	if err := s.syncTools(cat); err != nil {
		return err
	}
	return s.syncExtras()
}

// frontHooks is the Server as the bridge's front end.
type frontHooks struct{ s *Server }

func (f frontHooks) CatalogChanged() {
	// The bridge calls it while it changes the catalog: follow syncs.
	select {
	case f.s.changed <- struct{}{}:
	default:
	}
}

func (f frontHooks) ServerLog(server string, line lifecycle.LogLine) {
	f.s.calls.log(f.s.mcp, server, line)
}

func (f frontHooks) Elicit(ctx context.Context, server string, p mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	return f.s.calls.elicit(ctx, server, p)
}

// sampler asks the client of a server's call for a completion.
type sampler struct {
	calls  *callBoard
	server string
}

func (sp sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return sp.calls.sample(ctx, sp.server, req)
}

// shownName is the name a client sees for a catalog entry.
func (s *Server) shownName(e *catalog.Tool) string {
	if s.o.Unprefixed {
		return e.Tool.Name
	}
	return e.Name
}

// syncTools sets the MCP server's tools: the search and call tools and the activated
// tools, or every tool; unchanged names change nothing (no list_changed).
func (s *Server) syncTools(cat *catalog.Catalog) error {
	var tools []server.ServerTool
	if s.o.Tools == ToolsSearch {
		tools = append(tools, s.searchTools()...)
	}
	seen := map[string]string{} // shown name → server
	var collisions []string
	s.mu.Lock()
	for i := range cat.Entries {
		e := &cat.Entries[i]
		name := s.shownName(e)
		if s.o.Tools == ToolsSearch {
			if !s.activated[name] {
				continue
			}
		}
		if other, dup := seen[name]; dup {
			collisions = append(collisions, fmt.Sprintf("%q (servers %s and %s)", name, other, e.Server))
			continue
		}
		seen[name] = e.Server
		tools = append(tools, server.ServerTool{Tool: mcpTool(name, e.CacheTool()), Handler: s.taskAware(s.directHandler(e.Ref()))})
	}
	key := toolsKey(tools)
	same := key == s.toolsKey
	s.toolsKey = key
	s.mu.Unlock()
	if len(collisions) > 0 {
		sort.Strings(collisions)
		err := &CollisionError{Names: collisions}
		if s.o.Unprefixed {
			return err
		}
		s.log.Warn().Err(err).Msg("tools left out")
	}
	if !same {
		setTools(s.mcp, s.log, tools)
	}
	return nil
}

// toolsKey is what a client sees of tools: their names, descriptions and schemas.
func toolsKey(tools []server.ServerTool) string {
	h := fnv.New64a()
	for _, t := range tools {
		raw, _ := json.Marshal(t.Tool)
		h.Write(raw)
		h.Write([]byte{0})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// CollisionError: with the servers' own names (--prefix none), two servers have a tool,
// prompt or resource of one name.
type CollisionError struct{ Names []string }

func (e *CollisionError) Error() string {
	return "--prefix none: these names are offered by two servers: " + strings.Join(e.Names, ", ") +
		"; serve with the names as in zot (drop --prefix none), or hide one of each pair with the server's excludeTools"
}

// setTools hands tools to mcp-go. mcp-go panics on a tool whose header annotations it
// refuses (x-mcp-header); one server's odd tool must not end the serving, so on a panic
// the tools are set one at a time and the refused ones left out and logged.
func setTools(m *server.MCPServer, log zerolog.Logger, tools []server.ServerTool) {
	if trySet(func() { m.SetTools(tools...) }) == nil {
		return
	}
	m.SetTools()
	for _, t := range tools {
		if err := trySet(func() { m.AddTools(t) }); err != nil {
			log.Warn().Str("tool", t.Tool.Name).Err(err).Msg("a tool mcp-go refuses is not served")
		}
	}
}

func trySet(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// mcpTool is a cached tool as an MCP tool named name.
func mcpTool(name string, t cache.Tool) mcp.Tool {
	out := mcp.Tool{Name: name, Title: t.Title, Description: t.Description, RawInputSchema: t.InputSchema,
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}
	if len(out.RawInputSchema) == 0 {
		out.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(t.OutputSchema) > 0 {
		out.RawOutputSchema = t.OutputSchema
	}
	if a := t.Annotations; a != nil {
		out.Annotations = mcp.ToolAnnotation{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	return out
}

// searchTools are the search and call tools, the search tool's description carrying
// the directory of servers.
func (s *Server) searchTools() []server.ServerTool {
	search := mcp.Tool{Name: SearchTool, Description: renameTools(s.b.SearchDescription()), RawInputSchema: bridge.SearchSchema()}
	call := mcp.Tool{Name: CallTool, Description: renameTools(bridge.CallDescription()), RawInputSchema: bridge.CallSchema(),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}
	return []server.ServerTool{{Tool: search, Handler: s.handleSearch}, {Tool: call, Handler: s.taskAware(s.handleCall)}}
}

// renameTools words the bridge's texts for this server's tool names.
func renameTools(text string) string {
	return strings.NewReplacer(bridge.SearchToolName, SearchTool, bridge.CallToolName, CallTool).Replace(text)
}

// handleSearch answers the search tool and lists the tools it found directly.
func (s *Server) handleSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, shown := s.b.SearchFor(rawArgs(req))
	if len(shown) > 0 {
		s.mu.Lock()
		added := false
		for _, e := range shown {
			name := s.shownName(e)
			if !s.activated[name] {
				s.activated[name] = true
				added = true
			}
		}
		s.mu.Unlock()
		if added {
			if err := s.sync(ctx); err != nil {
				s.log.Warn().Err(err).Msg("the tools a search found could not be listed")
			}
			if info := server.RequestProtocolInfoFromContext(ctx); info == nil || !info.Modern {
				// mcp-go tells the sessions it knows of; a 2025-11-25 client over HTTP
				// whose standalone stream is not open yet (or never) is told on the
				// search's own stream, before its answer. A 2026-07-28 client hears of
				// list changes only on its subscriptions/listen stream.
				_ = s.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationToolsListChanged), nil)
			}
		}
	}
	return fromHost(res), nil
}

// handleCall answers the call tool: server, tool and arguments checked as in zot, then
// the call forwarded.
func (s *Server) handleCall(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if state := req.Params.RequestState; state != "" {
		return s.calls.resume(ctx, req)
	}
	e, args, bad := s.b.ResolveCall(rawArgs(req))
	if bad != nil {
		return fromHost(*bad), nil
	}
	return s.forward(ctx, req, e, args)
}

// taskAware runs h under the context of the client request it answers, which for a call
// run as a task is the task's (taskBoard.clientContext), from its first step on.
func (s *Server) taskAware(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, done := s.tasks.clientContext(ctx, req)
		defer done()
		return h(ctx, req)
	}
}

// directHandler calls one catalog tool by its listed name.
func (s *Server) directHandler(ref catalog.ToolRef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.RequestState != "" {
			return s.calls.resume(ctx, req)
		}
		cat, err := s.b.WaitCatalog(ctx)
		if err != nil {
			return nil, err
		}
		e, ok := cat.LookupRef(ref.Server, ref.Tool)
		if !ok {
			return mcp.NewToolResultError(fmt.Sprintf("tool %q of MCP server %q is no longer offered; list the tools again", ref.Tool, ref.Server)), nil
		}
		return s.forward(ctx, req, e, rawArgs(req))
	}
}

// forward runs the call on its server as one call of the board (its questions, log
// messages and progress reach this client).
func (s *Server) forward(ctx context.Context, req mcp.CallToolRequest, e *catalog.Tool, args json.RawMessage) (*mcp.CallToolResult, error) {
	level := clientLogLevel(ctx)
	c := s.calls.start(ctx, req, e.Server, func(cctx context.Context, progress bridge.ProgressFunc) (*mcp.CallToolResult, error) {
		return s.b.Forward(cctx, e, args, bridge.ForwardOptions{Progress: progress, LogLevel: level})
	})
	return s.calls.wait(ctx, req, c)
}

// clientLogLevel is the level of log messages the client of ctx asked for: a 2026-07-28
// request names it in its _meta, a 2025-11-25 client set it for its session
// (logging/setLevel; mcp-go's default otherwise).
func clientLogLevel(ctx context.Context) mcp.LoggingLevel {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.LogLevel
	}
	if sl, ok := server.ClientSessionFromContext(ctx).(server.SessionWithLogging); ok {
		return sl.GetLogLevel()
	}
	return ""
}

// rawArgs are the call's arguments as the client sent them.
func rawArgs(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	raw, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return raw
}

// fromHost is one of the bridge's answers for zot as an MCP result.
func fromHost(r extension.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			out.Content = append(out.Content, mcp.NewImageContent(c.Data, c.MimeType))
		default:
			out.Content = append(out.Content, mcp.NewTextContent(renameTools(c.Text)))
		}
	}
	if len(r.StructuredContent) > 0 {
		out.StructuredContent = r.StructuredContent
	}
	return out
}

// callError is a failed forward as the client's result: the bridge's wording for the
// model, as zot's model reads it.
func callError(server string, err error) *mcp.CallToolResult {
	var le *lifecycle.Error
	if errors.As(err, &le) {
		return mcp.NewToolResultError(renameTools(le.Msg))
	}
	return mcp.NewToolResultError(fmt.Sprintf("MCP server %q: %v", server, err))
}
