package cache

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestExtrasRoundTrip: resources, templates and prompts survive Update and Read, and a
// change of them alone rewrites the file without counting as a tool change.
func TestExtrasRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	e := &Server{Fingerprint: "f", Tools: []Tool{{Name: "a", InputSchema: []byte(`{"type":"object"}`)}},
		Resources:         []Resource{{URI: "file:///a.md", Name: "a.md", Title: "A", Description: "the a doc", MIMEType: "text/markdown"}},
		ResourceTemplates: []ResourceTemplate{{URITemplate: "db://rows/{id}", Name: "row"}},
		Prompts:           []Prompt{{Name: "review", Arguments: []PromptArgument{{Name: "pr", Required: true}, {Name: "style"}}}}}
	if _, err := Update(ctx, path, map[string]*Server{"s": e}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got := f.Servers["s"]
	if !reflect.DeepEqual(got.Resources, e.Resources) || !reflect.DeepEqual(got.ResourceTemplates, e.ResourceTemplates) || !reflect.DeepEqual(got.Prompts, e.Prompts) {
		t.Fatalf("read back %+v", got)
	}
	before, _ := os.ReadFile(path)
	e2 := *e
	e2.Prompts = nil
	changed, err := Update(ctx, path, map[string]*Server{"s": &e2}, nil, time.Now)
	if err != nil || len(changed) > 0 {
		t.Fatalf("extras-only change: changed=%v err=%v (tools did not change)", changed, err)
	}
	after, _ := os.ReadFile(path)
	if string(after) == string(before) {
		t.Fatal("an extras-only change did not rewrite the file")
	}
	if f, _ := Read(path); len(f.Servers["s"].Prompts) != 0 {
		t.Fatal("prompts not dropped")
	}
}

// TestOlderCacheFileLoads: a file written before resources and prompts were cached loads
// with none of them, and a tools-only entry is written exactly as before.
func TestOlderCacheFileLoads(t *testing.T) {
	old := `{
  "version": 1,
  "servers": {
    "s": {
      "fingerprint": "f",
      "updatedAt": "2026-01-01T00:00:00Z",
      "tools": [
        {
          "name": "a",
          "inputSchema": {"type":"object"}
        }
      ]
    }
  }
}
`
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	e := f.Servers["s"]
	if e == nil || len(e.Tools) != 1 || e.Resources != nil || e.ResourceTemplates != nil || e.Prompts != nil {
		t.Fatalf("old file read as %+v", e)
	}
	data, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != old {
		t.Fatalf("a tools-only entry is written differently:\n%s", data)
	}
}
