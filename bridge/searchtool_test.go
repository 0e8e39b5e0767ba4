package bridge

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/startup"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// loadedBridge configures two fake servers, fills the cache and returns a fresh bridge
// loaded from it (as a new zot session would be).
func loadedBridge(t *testing.T, gen extension.Generation, top map[string]any) (*testEnv, *Bridge) {
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha"), "beta": e.server("-name", "beta")}, top)
	first := e.bridge(gen)
	if _, errs := first.Refresh(ctxGuard(t), []string{"alpha", "beta"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	return e, e.bridge(gen)
}

func runSearch(t *testing.T, b *Bridge, args any) extension.ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	if s, ok := args.(string); ok {
		raw = []byte(s)
	}
	return b.CallTool(context.Background(), extension.ToolCall{ID: "x", Name: SearchToolName, Args: raw})
}

func TestSearchTool(t *testing.T) {
	t.Parallel()
	_, b := loadedBridge(t, extension.GenNew, nil)
	cases := []struct {
		name     string
		args     any
		isError  bool
		activate []string // exact activation list; nil means "none"
		prefix   []string // expected first activations
		text     string
	}{
		{"empty query", map[string]any{"query": "  "}, true, nil, nil, "query is empty"},
		{"missing query", map[string]any{}, true, nil, nil, "query is empty"},
		{"bad json", `{"query":`, true, nil, nil, "invalid arguments"},
		{"wrong type", map[string]any{"query": 3}, true, nil, nil, "invalid arguments"},
		{"limit too big", map[string]any{"query": "echo", "limit": 21}, true, nil, nil, "limit must be between 1 and 20"},
		{"limit zero", map[string]any{"query": "echo", "limit": 0}, true, nil, nil, "limit must be between 1 and 20"},
		{"no match", map[string]any{"query": "zzqqxx flurble"}, false, nil, nil, "No MCP tools matched"},
		{"select", map[string]any{"query": "select:mcp__beta__add,mcp__alpha__echo"}, false, []string{"mcp__beta__add", "mcp__alpha__echo"}, nil, "Loaded 2"},
		{"exact mcp name", map[string]any{"query": "echo", "limit": 2}, false, []string{"mcp__alpha__echo", "mcp__beta__echo"}, nil, ""},
		{"exact full name", map[string]any{"query": "mcp__beta__pid", "limit": 1}, false, []string{"mcp__beta__pid"}, nil, ""},
		{"task words, server named", map[string]any{"query": "add two numbers with beta"}, false, nil, []string{"mcp__beta__add"}, "(a*, b*)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runSearch(t, b, tc.args)
			text := textOf(t, r)
			if r.IsError != tc.isError || !strings.Contains(text, tc.text) {
				t.Fatalf("is_error=%v text=%q", r.IsError, text)
			}
			if tc.activate != nil && strings.Join(r.ActivateTools, ",") != strings.Join(tc.activate, ",") {
				t.Fatalf("activated %v, want %v", r.ActivateTools, tc.activate)
			}
			if tc.activate == nil && tc.prefix == nil && len(r.ActivateTools) > 0 {
				t.Fatalf("activated %v, want nothing", r.ActivateTools)
			}
			for i, p := range tc.prefix {
				if i >= len(r.ActivateTools) || r.ActivateTools[i] != p {
					t.Fatalf("activated %v, want prefix %v", r.ActivateTools, tc.prefix)
				}
			}
			for _, n := range r.ActivateTools {
				if !strings.Contains(text, "- "+n) {
					t.Fatalf("activated %s not listed in %q", n, text)
				}
			}
		})
	}
	// Default limit and stable order.
	r1 := runSearch(t, b, map[string]any{"query": "server"})
	r2 := runSearch(t, b, map[string]any{"query": "server"})
	if len(r1.ActivateTools) > defaultLimit || strings.Join(r1.ActivateTools, ",") != strings.Join(r2.ActivateTools, ",") {
		t.Fatalf("default limit/stability: %v vs %v", r1.ActivateTools, r2.ActivateTools)
	}
}

func TestSearchDescriptionHasDirectory(t *testing.T) {
	t.Parallel()
	_, b := loadedBridge(t, extension.GenNew, nil)
	d := b.searchDescription(startup.FromCatalog(b.catalog(), nil).Refs())
	for _, want := range []string{"alpha (13 tools", "beta (13 tools", "select:"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q: %s", want, d)
		}
	}
	if len(d) > 3000 {
		t.Errorf("description is %d bytes", len(d))
	}
}

func TestSearchWithoutServersOrCache(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{}, nil)
	b := e.bridge(extension.GenNew)
	r := runSearch(t, b, map[string]any{"query": "anything"})
	if r.IsError || !strings.Contains(textOf(t, r), "/mcp setup add") || len(r.ActivateTools) > 0 {
		t.Fatalf("no servers: %q", textOf(t, r))
	}
	// Tools discovered after startup are searchable but not activated (the host does not
	// know them until /reload-ext).
	e.write(map[string]any{"late": e.server()}, nil)
	b = e.bridge(extension.GenNew)
	if _, errs := b.Refresh(ctxGuard(t), []string{"late"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	r = runSearch(t, b, map[string]any{"query": "echo"})
	if len(r.ActivateTools) != 0 || !strings.Contains(textOf(t, r), "/reload-ext") {
		t.Fatalf("unregistered tools activated: %v %q", r.ActivateTools, textOf(t, r))
	}
}

func TestUnknownToolSuggests(t *testing.T) {
	t.Parallel()
	_, b := loadedBridge(t, extension.GenNew, nil)
	r := b.CallTool(context.Background(), extension.ToolCall{ID: "1", Name: "mcp__alpha__ecoh"})
	if !r.IsError || !strings.Contains(textOf(t, r), `Did you mean "mcp__alpha__echo"`) {
		t.Fatalf("%q", textOf(t, r))
	}
}

// TestListChangedUpdatesCacheAndNotifiesOnce drives an in-process bridge through the fake
// host; the server adds a tool after its first call and announces it.
func TestListChangedUpdatesCacheAndNotifiesOnce(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-list-changed-on-call")}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"s"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	pre.Close(ctxGuard(t))
	before, _ := cache.Read(pre.opts.CachePath)
	for _, tl := range before.Servers["s"].Tools {
		if tl.Name == "late_tool" {
			t.Fatal("late_tool cached before the change was announced: the fixture is broken")
		}
	}

	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: clock.System{}, Log: zerolog.New(io.Discard),
		Supervisor: supervisorArgv(), Connect: e.connect()})
	h, in, out := exttest.NewPipe(t)
	ctx := ctxGuard(t)
	done := make(chan error, 1)
	go func() { done <- extension.Run(ctx, in, out, b, extension.Options{Name: "mcp"}) }()
	h.ExpectHello(ctx)
	h.Handshake(ctx, exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}})
	if r, err := h.CallTool(ctx, "1", "mcp__s__echo", map[string]any{"text": "wake"}); err != nil || r.IsError {
		t.Fatalf("wake: %v %s", err, r.Text())
	}
	n, err := h.WaitNotify(ctx, "changed its tools")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(n.Message, "/reload-ext") {
		t.Fatalf("notice: %q", n.Message)
	}
	after, _ := cache.Read(b.opts.CachePath)
	found := false
	for _, tl := range after.Servers["s"].Tools {
		found = found || tl.Name == "late_tool"
	}
	if !found {
		t.Fatal("cache entry not updated with late_tool")
	}
	// A refresh that finds nothing new sends no second notice.
	if r, err := h.Command(ctx, "c", "mcp", "refresh s"); err != nil || !strings.Contains(r.Display, "No tool changes") {
		t.Fatalf("refresh: %v %q", err, r.Display)
	}
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	b.Close(ctx)
	for _, f := range h.Pending() {
		if f.Type == "notify" && strings.Contains(string(f.Raw), "changed its tools") {
			t.Fatalf("second list_changed notice: %s", f.Raw)
		}
	}
	if left := testutil.WaitNoProcs(ctx, e.marker); len(left) > 0 {
		t.Fatalf("left processes: %v", left)
	}
}

// TestSearchNamesEachNeed: the answer to a whole task heads each group of
// tools with the need it answers, in the request's own words; a plain
// request's answer has no headings; a long request is not echoed whole.
func TestSearchNamesEachNeed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		gen        extension.Generation
		add, echo  string // how the answer lists the tools
		afterHeadg string // what follows a heading
	}{
		{"direct", extension.GenNew, "__add:", "__echo:", "\n- mcp__"},
		{"proxy", extension.GenLegacy, `tool="add"`, `tool="echo"`, "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, b := loadedBridge(t, c.gen, nil)
			task := "We are checking a small calculator server by hand today before the release goes out. " +
				"Add the two numbers seven and five for me, and then echo the text hello back so I can compare."
			text := textOf(t, runSearch(t, b, map[string]any{"query": task}))
			for _, g := range []struct{ heading, tool string }{
				{`For the need "Add the two numbers seven and five for":`, c.add},
				{`For the need "and then echo the text hello back so":`, c.echo},
			} {
				at := strings.Index(text, g.heading+c.afterHeadg)
				if at < 0 {
					t.Errorf("answer lacks %q:\n%s", g.heading, text)
					continue
				}
				group, _, _ := strings.Cut(text[at+len(g.heading):], "\nFor the")
				if !strings.Contains(group, g.tool) {
					t.Errorf("no %s under %q:\n%s", g.tool, g.heading, text)
				}
			}
			if strings.Contains(text, "so I can compare.\"") {
				t.Errorf("the long request is echoed whole:\n%s", text)
			}
			if plain := textOf(t, runSearch(t, b, map[string]any{"query": "add two numbers"})); strings.Contains(plain, "For the") {
				t.Errorf("a plain request's answer has headings:\n%s", plain)
			}
		})
	}
}

// TestGroupByNeed: a whole task's tools are grouped by need, the groups in
// the order of their best tool; a plain request's order is kept.
func TestGroupByNeed(t *testing.T) {
	t.Parallel()
	tool := func(name string) *catalog.Tool { return &catalog.Tool{Name: name} }
	for _, c := range []struct {
		name      string
		needs     []string
		wantOrder string
	}{
		{"plain", []string{"", "", ""}, "a b c"},
		{"two needs", []string{"x", "y", "x"}, "a c b"},
		{"whole first", []string{"", "x", "", "x"}, "a c b d"},
	} {
		names := []string{"a", "b", "c", "d"}[:len(c.needs)]
		var shown []*catalog.Tool
		for _, n := range names {
			shown = append(shown, tool(n))
		}
		got, gotNeeds := groupByNeed(shown, c.needs)
		var order []string
		for i, e := range got {
			order = append(order, e.Name)
			if i > 0 && gotNeeds[i] != gotNeeds[i-1] && slices.Contains(gotNeeds[:i], gotNeeds[i]) {
				t.Errorf("%s: need %q split in two groups: %v", c.name, gotNeeds[i], gotNeeds)
			}
		}
		if strings.Join(order, " ") != c.wantOrder {
			t.Errorf("%s: order %v, want %s", c.name, order, c.wantOrder)
		}
	}
}

// TestSearchToolsNamesEachNeed: the CLI's search --json ranks a whole task
// as mcp__search_tools does: each hit says the need it answers, and the
// hits of one need are together.
func TestSearchToolsNamesEachNeed(t *testing.T) {
	t.Parallel()
	_, b := loadedBridge(t, extension.GenNew, nil)
	task := "We are checking a small calculator server by hand today before the release goes out. " +
		"Add the two numbers seven and five for me, and then echo the text hello back so I can compare."
	hits, why := b.SearchTools(task, 8)
	if why != "" || len(hits) == 0 {
		t.Fatalf("SearchTools = %v, %q", hits, why)
	}
	want := map[string]string{"add": "Add the two numbers seven and five for", "echo": "and then echo the text hello back so"}
	got := map[string]string{}
	var order []string
	for _, h := range hits {
		if _, ok := got[h.Tool]; !ok {
			got[h.Tool] = h.Need
		}
		if len(order) == 0 || order[len(order)-1] != h.Need {
			if slices.Contains(order, h.Need) {
				t.Errorf("the hits of need %q are not together: %+v", h.Need, hits)
			}
			order = append(order, h.Need)
		}
	}
	for tool, need := range want {
		if got[tool] != need {
			t.Errorf("%s answers need %q, want %q (hits %+v)", tool, got[tool], need, hits)
		}
	}
}
