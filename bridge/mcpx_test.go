package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/extras"
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
	entry := &cache.Entry{Fingerprint: e.srv(b, "docs").Config().Fingerprint(),
		Resources: []cache.Resource{{URI: "docs://handbook", Name: "handbook", Description: "The team handbook"}},
		Prompts:   []cache.Prompt{{Name: "summarize"}}}
	if _, err := cache.Update(context.Background(), b.opts.CachePath, map[string]*cache.Entry{"docs": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	if got := b.searchResources("team handbook", 5); len(got) != 1 || !strings.Contains(extras.Line(got[0], toolview.PurposeLen), `uri="docs://handbook"`) {
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
