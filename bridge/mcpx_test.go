package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
)

func TestStripOutputSchema(t *testing.T) {
	t.Parallel()
	full := payloadFor("s", &cacheToolWithOutput)
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

// TestRootDirs: the project is the first root; a stdio server's directory arguments
// follow (so server-filesystem keeps what the user configured), flags and non-directories
// do not.
func TestRootDirs(t *testing.T) {
	t.Parallel()
	project, other := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(project, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		project string
		args    []string
		want    []string
	}{
		{"project only", project, nil, []string{project}},
		{"argument directories", project, []string{"--flag", ".", "sub", other, "missing", filepath.Join(project, "file.txt")}, []string{project, filepath.Join(project, "sub"), other}},
		{"no project", "", []string{other}, []string{other}},
		{"nothing", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(&config.Server{Name: "fs", Args: tt.args}, &serverDeps{projectDir: tt.project})
			if got := s.rootDirs(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("rootDirs = %q, want %q", got, tt.want)
			}
			res, err := rootsHandler{dirs: s.rootDirs()}.ListRoots(context.Background(), mcp.ListRootsRequest{})
			if err != nil || res.Roots == nil || len(res.Roots) != len(tt.want) {
				t.Fatalf("ListRoots: %v %+v", err, res)
			}
			for i, r := range res.Roots {
				if r.URI != "file://"+tt.want[i] {
					t.Fatalf("root %d: %q", i, r.URI)
				}
			}
		})
	}
}

// TestListChangedOfResourcesAndPrompts: resources and prompts list changes re-list the
// server like a tools list change; other notifications do not.
func TestListChangedOfResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		relist bool
	}{
		{"notifications/resources/list_changed", true},
		{"notifications/prompts/list_changed", true},
		{"notifications/resources/updated", false},
	} {
		got := make(chan string, 1)
		s := newServer(&config.Server{Name: "s"}, &serverDeps{onListChanged: func(n string) { got <- n }})
		n := mcp.JSONRPCNotification{}
		n.Method = tt.method
		s.onNotification(n)
		if tt.relist {
			if name := <-got; name != "s" {
				t.Fatalf("%s: re-listed %q", tt.method, name)
			}
		} else {
			select {
			case name := <-got:
				t.Fatalf("%s re-listed %q", tt.method, name)
			default: // no re-list was started
			}
		}
	}
}

// TestResourceContents: resource contents become tool result content: images stay
// images, text (also text sent as a blob) comes with its URI, other binary content is
// described, and everything is bounded like a tool result.
func TestResourceContents(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", DefaultBudget.Text+10)
	res := &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		mcp.BlobResourceContents{URI: "img://a", MIMEType: "image/png", Blob: "iVBORw0KGgo="},
		mcp.BlobResourceContents{URI: "t://b", MIMEType: "text/plain", Blob: "aGVsbG8="},
		mcp.BlobResourceContents{URI: "bin://c", MIMEType: "application/zip", Blob: "UEsDBA=="},
		mcp.TextResourceContents{URI: "t://big", Text: big},
	}}
	out := ConvertResult(resourceAsResult(res), DefaultBudget)
	if len(out.Content) < 4 || out.Content[0].Type != "image" || out.Content[0].MimeType != "image/png" || out.Content[0].Data != "iVBORw0KGgo=" {
		t.Fatalf("image not kept: %+v", out.Content)
	}
	text := ""
	for _, c := range out.Content[1:] {
		text += c.Text + "\n"
	}
	for _, want := range []string{"[resource t://b]\nhello", "[resource bin://c: application/zip, 8 bytes base64, not shown]", "[resource t://big]", "[result truncated by mcp-bridge"} {
		if !strings.Contains(text, want) {
			t.Errorf("converted contents lack %q", want)
		}
	}
	if len(text) > DefaultBudget.Text+1024 {
		t.Errorf("text not bounded: %d bytes", len(text))
	}
}

func TestPromptText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		msgs []mcp.PromptMessage
		want string
	}{
		{"one user message", []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "Review PR 12"}}}, "Review PR 12"},
		{"a conversation", []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "Q"}},
			{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "A"}},
		}, "user: Q\n\nassistant: A"},
		{"image and resource", []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.ImageContent{Type: "image", MIMEType: "image/png"}},
			{Role: mcp.RoleUser, Content: mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "f://x", Text: "body"}}},
		}, "user: [image image/png omitted]\n\nuser: [resource f://x]\nbody"},
	} {
		if got := promptText(&mcp.GetPromptResult{Messages: tt.msgs}); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestResourcesOfWithdrawnServersAreHidden: a server the user has not approved (or
// withdrew) offers no resources and no prompts, although its cache entry is known.
func TestResourcesOfWithdrawnServersAreHidden(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"docs": e.server()}, nil)
	b := e.bridge(extension.GenNew)
	entry := &cache.Entry{Fingerprint: e.srv(b, "docs").cfg.Fingerprint(),
		Resources: []cache.Resource{{URI: "docs://handbook", Name: "handbook", Description: "The team handbook"}},
		Prompts:   []cache.Prompt{{Name: "summarize"}}}
	if _, err := cache.Update(context.Background(), b.opts.CachePath, map[string]*cache.Entry{"docs": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	if got := b.searchResources("team handbook", 5); len(got) != 1 || got[0].res.URI != "docs://handbook" {
		t.Fatalf("approved server: %+v", got)
	}
	if txt, _ := b.Command(context.Background(), "prompts"); !strings.Contains(txt, "summarize") {
		t.Fatalf("approved server's prompts: %s", txt)
	}
	e.srv(b, "docs").pending.Store(true)
	if got := b.searchResources("team handbook", 5); len(got) != 0 {
		t.Fatalf("a withdrawn server's resource is offered: %+v", got)
	}
	if txt, _ := b.Command(context.Background(), "prompts"); strings.Contains(txt, "summarize") {
		t.Fatalf("a withdrawn server's prompts are listed: %s", txt)
	}
}
