package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
)

// TestCatalogCleansServerText: whatever a server put in a tool's title, description,
// annotation title or schema strings, the catalog holds it sanitized, before and after
// packing, and its search index and registered description see the clean text; a tool
// whose name carries hidden characters is left out, and clean tools are kept as they are.
func TestCatalogCleansServerText(t *testing.T) {
	dirty := cache.Tool{Name: "read", Title: "Read\x1b[2J", Description: "Reads\u202e a file\u200b.\x07\U000E0069",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"p\u200b":{"type":"string","description":"path\u001b]52;c;eA==\u0007"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","description":"out\u009b"}`),
		Annotations:  &cache.Annotations{Title: "Read\u2066 it"}}
	clean := cache.Tool{Name: "list", Description: "Lists — files.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	hiddenName := cache.Tool{Name: "li\u200bst", Description: "hides in its name", InputSchema: json.RawMessage(`{"type":"object"}`)}
	o := catalogOwner(t)
	cat, _ := o.Change(Change{Replace: true, PackLater: true, Tools: map[string][]cache.Tool{"s": {dirty, clean, hiddenName}}})
	check := func(when string, cat *Catalog) {
		t.Helper()
		if len(cat.Entries) != 2 {
			t.Fatalf("%s: %d entries, want read and list (the tool with a hidden character in its name left out)", when, len(cat.Entries))
		}
		for i := range cat.Entries {
			e := &cat.Entries[i]
			got := e.CacheTool()
			for what, s := range map[string]string{"name": got.Name, "title": got.Title, "description": got.Description,
				"schema": string(got.InputSchema), "output schema": string(got.OutputSchema), "registered description": describe("s", &got)} {
				if !safetext.Clean(s) || strings.Contains(s, `\u001b`) || strings.Contains(s, `\u200b`) || strings.Contains(s, `\u0007`) || strings.Contains(s, `\u009b`) {
					t.Errorf("%s: %s's %s is not clean: %q", when, e.Name, what, s)
				}
			}
			if got.Annotations != nil && !safetext.Clean(got.Annotations.Title) {
				t.Errorf("%s: %s's annotation title is not clean: %q", when, e.Name, got.Annotations.Title)
			}
			if e.Tool.Name == "list" && (got.Description != clean.Description || string(got.InputSchema) != string(clean.InputSchema)) {
				t.Errorf("%s: clean tool changed: %+v", when, got)
			}
			if e.Tool.Name == "read" && (got.Description != "Reads a file." || !json.Valid(got.InputSchema) || !strings.Contains(string(got.InputSchema), `"p":`)) {
				t.Errorf("%s: read is %q %s", when, got.Description, got.InputSchema)
			}
		}
		for _, h := range cat.SearchIndex().Search("reads a file", 5) {
			if d := docFor(&cat.Entries[h.Doc]); !safetext.Clean(d.Title + d.Description) {
				t.Errorf("%s: indexed text is not clean: %q %q", when, d.Title, d.Description)
			}
		}
	}
	check("unpacked", cat)
	check("packed", o.Pack())
}

// TestCatalogUnregisteredReason: a tool of the startup set that was not registered after
// all is not registered whatever Registered says, keeps its reason through later changes
// (a refresh of its server, packing), and the others are unaffected.
func TestCatalogUnregisteredReason(t *testing.T) {
	o := catalogOwner(t)
	big, small := ToolRef{"s", "big"}, ToolRef{"s", "small"}
	why := "its definition does not fit"
	o.Change(Change{Replace: true, PackLater: true, Tools: map[string][]cache.Tool{"s": tools("big", "small")},
		Unregistered: map[ToolRef]string{big: why}})
	for _, step := range []struct {
		name string
		ch   Change
	}{{"pack", Change{}}, {"refresh", Change{Tools: map[string][]cache.Tool{"s": tools("big", "small", "new")}}}} {
		cat, _ := o.Change(step.ch)
		b, _ := cat.LookupRef(big.Server, big.Tool)
		s, _ := cat.LookupRef(small.Server, small.Tool)
		if b.Registered() || cat.Unregistered(b) != why {
			t.Errorf("%s: big is registered=%v unregistered=%q", step.name, b.Registered(), cat.Unregistered(b))
		}
		if !s.Registered() || cat.Unregistered(s) != "" {
			t.Errorf("%s: small is registered=%v unregistered=%q", step.name, s.Registered(), cat.Unregistered(s))
		}
		if n, ok := cat.LookupRef("s", "new"); ok && (n.Registered() || cat.Unregistered(n) != "") {
			t.Errorf("%s: a tool found after startup is registered=%v unregistered=%q", step.name, n.Registered(), cat.Unregistered(n))
		}
	}
}

// TestCatalogMarksUnregisteredLater: the catalog published before registration (a start
// without the startup file) learns afterwards which tools were not registered: they
// become unregistered with the reason, keep it, and nothing else changes.
func TestCatalogMarksUnregisteredLater(t *testing.T) {
	o := catalogOwner(t)
	o.Change(Change{Replace: true, PackLater: true, Tools: map[string][]cache.Tool{"s": tools("big", "small")}})
	why := "too large"
	cat, _ := o.Change(Change{Unregistered: map[ToolRef]string{{Server: "s", Tool: "big"}: why}, PackLater: true})
	cat2, _ := o.Change(Change{Tools: map[string][]cache.Tool{"s": tools("big", "small")}})
	for _, c := range []*Catalog{cat, cat2} {
		b, _ := c.LookupRef("s", "big")
		s, _ := c.LookupRef("s", "small")
		if b.Registered() || c.Unregistered(b) != why || !s.Registered() || c.Unregistered(s) != "" || len(c.Entries) != 2 {
			t.Fatalf("big %v %q, small %v %q", b.Registered(), c.Unregistered(b), s.Registered(), c.Unregistered(s))
		}
	}
}
