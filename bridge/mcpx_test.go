package bridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/startup"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

func TestStripOutputSchema(t *testing.T) {
	t.Parallel()
	full := startup.PayloadFor("s", &cacheToolWithOutput)
	if !strings.Contains(string(full), `"output_schema":`) {
		t.Fatalf("payload lacks output_schema: %s", full)
	}
	got := full.WithoutOutputSchema()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(append(append([]byte{'{'}, got...), '}'), &m); err != nil {
		t.Fatalf("stripped payload is not JSON members: %s", got)
	}
	if _, ok := m["output_schema"]; ok || m["description"] == nil || m["schema"] == nil {
		t.Fatalf("stripped payload: %s", got)
	}
}

// TestLegacyHostGetsNoProgressNotes: a host that cannot clear notes would pile up one
// note per progress step, so it gets none; its general notes still arrive.
var cacheToolWithOutput = cache.Tool{Name: "weather", Description: "Weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"output_schema":{"type":"string"}}}`),
	OutputSchema: json.RawMessage(`{"type":"object","properties":{"t":{"type":"number"}}}`)}

// TestResourcesOfWithdrawnServersAreHidden: a server the user has not approved (or
// withdrew) offers no resources and no prompts, although its cache entry is known.
func TestResourcesOfWithdrawnServersAreHidden(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"docs": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	entry := &cache.Server{Fingerprint: e.srv(b, "docs").Config().Fingerprint(),
		Resources: []cache.Resource{{URI: "docs://handbook", Name: "handbook", Description: "The team handbook"}},
		Prompts:   []cache.Prompt{{Name: "summarize"}}}
	if _, err := cache.Update(context.Background(), b.opts.CachePath, map[string]*cache.Server{"docs": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	if got := b.searchResources("team handbook", 5); len(got) != 1 || !strings.Contains(resources.Line(got[0], toolview.PurposeLen), `uri="docs://handbook"`) {
		t.Fatalf("approved server: %+v", got)
	}
	if txt, _ := b.Command(context.Background(), "prompts"); !strings.Contains(txt, "summarize") {
		t.Fatalf("approved server's prompts: %s", txt)
	}
	e.srv(b, "docs").SetPending(true)
	if got := b.searchResources("team handbook", 5); len(got) != 0 {
		t.Fatalf("a withdrawn server's resource is offered: %+v", got)
	}
	if txt, _ := b.Command(context.Background(), "prompts"); strings.Contains(txt, "summarize") {
		t.Fatalf("a withdrawn server's prompts are listed: %s", txt)
	}
}

// pastedBlob is a screenshot pasted into a request (base64 of a PNG's bytes).
var pastedBlob = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG\r\n\x1a\n IHDR screenshot pixels ", 12)))

// longTask is a whole task that pastes a screenshot.
var longTask = "Our on-call team keeps asking the same questions about escalation, so find the team handbook for me " +
	"and show me its section on paging rules. Here is the screenshot they sent: " + pastedBlob

// TestSearchShowsResourcesBesideTools: a search's matching resources follow the tools it
// found, and are the whole answer when no tool matched (whatever that answer's words).
func TestSearchShowsResourcesBesideTools(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"docs": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	entry := &cache.Server{Fingerprint: e.srv(b, "docs").Config().Fingerprint(),
		Tools:     []cache.Tool{{Name: "forecast", Description: "Weather forecast for a city", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Resources: []cache.Resource{{URI: "docs://handbook", Name: "handbook", Description: "The team handbook, weather policy included"}}}
	if _, err := cache.Update(context.Background(), b.opts.CachePath, map[string]*cache.Server{"docs": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	for _, tt := range []struct {
		query string
		texts int    // content blocks
		first string // what the first one says
	}{
		{"weather forecast", 2, "mcp__docs__forecast"},
		{"team handbook", 1, `MCP resources matching "team handbook"`},
		// A whole task with a paste: the paste is not searched nor quoted back,
		// the request is quoted cut as the tools part quotes it.
		{longTask, 1, `MCP resources matching "Our on-call team keeps`},
	} {
		raw, _ := json.Marshal(map[string]any{"query": tt.query})
		res := b.searchWithResources(raw)
		if strings.Contains(res.Content[0].Text, pastedBlob) || tt.query == longTask && !strings.Contains(res.Content[0].Text, " characters)") {
			t.Errorf("search %q quotes the request whole: %s", tt.query, res.Content[0].Text)
		}
		if res.IsError || len(res.Content) != tt.texts || !strings.Contains(res.Content[0].Text, tt.first) ||
			!strings.Contains(res.Content[len(res.Content)-1].Text, `uri="docs://handbook"`) {
			t.Errorf("search %q: %+v", tt.query, res.Content)
		}
	}
}
