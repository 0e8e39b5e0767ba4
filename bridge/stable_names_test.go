package bridge

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestNamerKeepsNames: a name once given stays with its tool. Before, assigning names
// afresh on every refresh moved mcp__a__x_y from a/x-y to a newly listed a/"x y" (which
// sorts first), so a host call reached the other tool.
func TestNamerKeepsNames(t *testing.T) {
	t.Parallel()
	n := NewNamer()
	first, _ := n.Assign([]ToolRef{{"a", "x-y"}})
	if first[ToolRef{"a", "x-y"}] != "mcp__a__x_y" {
		t.Fatalf("first name %v", first)
	}
	again, collisions := n.Assign([]ToolRef{{"a", "x-y"}, {"a", "x y"}})
	if again[ToolRef{"a", "x-y"}] != "mcp__a__x_y" {
		t.Fatalf("a/x-y lost its name to a/\"x y\": %v", again)
	}
	if again[ToolRef{"a", "x y"}] == "mcp__a__x_y" || len(collisions) != 1 {
		t.Fatalf("the new tool took a given name: %v %v", again, collisions)
	}
	// A name given to a tool that has since disappeared is never handed to another one.
	later, _ := n.Assign([]ToolRef{{"a", "x y"}, {"a", "x.y"}})
	if later[ToolRef{"a", "x.y"}] == "mcp__a__x_y" {
		t.Fatalf("a removed tool's name was reused: %v", later)
	}
}

// TestNamerSuffixCollidesWithRealName: a hash-suffixed name that equals another tool's
// plain name is resolved. Before, a/"x-y" (second in line for mcp__a__x_y) was given
// mcp__a__x_y_<hash> even when a real tool a/x_y_<hash> held that plain name.
func TestNamerSuffixCollidesWithRealName(t *testing.T) {
	t.Parallel()
	suffixed := "x_y_" + shortHash("a", "x-y")
	refs := []ToolRef{{"a", "x y"}, {"a", "x-y"}, {"a", suffixed}}
	names, _ := AssignNames(refs)
	seen := map[string]ToolRef{}
	for ref, name := range names {
		if other, dup := seen[name]; dup {
			t.Fatalf("%v and %v share %q", ref, other, name)
		}
		seen[name] = ref
	}
	if names[ToolRef{"a", suffixed}] != "mcp__a__"+suffixed {
		t.Fatalf("the real tool lost its plain name: %v", names)
	}
}

// TestStableNameAcrossRefresh: the bridge-level form of TestNamerKeepsNames: a refresh that
// lists a/"x y" next to the cached a/x-y leaves mcp__a__x_y pointing at a/x-y.
func TestStableNameAcrossRefresh(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"a": e.server("-no-default-tools", "-raw-tool", `x y={"type":"object"}`, "-raw-tool", `x-y={"type":"object"}`)}, nil)
	b := e.bridge(extension.GenNew)
	// Seed the cache with the server as it was before it added "x y".
	entry := &cache.Entry{Fingerprint: b.servers["a"].cfg.Fingerprint(), Tools: []cache.Tool{{Name: "x-y"}}}
	if _, err := cache.Update(ctxGuard(t), b.opts.CachePath, map[string]*cache.Entry{"a": entry}, nil, b.opts.Clock.Now); err != nil {
		t.Fatal(err)
	}
	b.loadCatalog(nil)
	if en, ok := b.catalog().lookup("mcp__a__x_y"); !ok || en.Tool.Name != "x-y" {
		t.Fatalf("before the refresh: %+v", en)
	}
	if _, errs := b.Refresh(ctxGuard(t), []string{"a"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	en, ok := b.catalog().lookup("mcp__a__x_y")
	if !ok || en.Tool.Name != "x-y" {
		t.Fatalf("mcp__a__x_y moved to %+v", en)
	}
	if _, ok := b.catalog().lookupRef("a", "x y"); !ok {
		t.Fatal("the new tool is not in the catalog")
	}
}

// TestConcurrentMergesKeepEveryServer: merges from concurrent refreshes each add their own
// server; none may be lost. Before, the catalog was loaded, rebuilt and swapped without a
// lock, and the last swap dropped what the others had merged.
func TestConcurrentMergesKeepEveryServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	const servers = 8
	cfg := map[string]any{}
	for i := range servers {
		cfg[fmt.Sprintf("s%d", i)] = e.server()
	}
	e.write(cfg, nil)
	for round := range 20 {
		b := e.bridge(extension.GenNew)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range servers {
			name := fmt.Sprintf("s%d", i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				b.mergeLive(map[string]*cache.Entry{name: {Tools: []cache.Tool{{Name: "t" + name}}}})
			}()
		}
		close(start)
		wg.Wait()
		names, _ := b.catalog().servers()
		if len(names) != servers {
			t.Fatalf("round %d: merged %d servers, the catalog holds %s", round, servers, strings.Join(names, ", "))
		}
	}
}

// TestValidatorFollowsSchemaChanges: the compiled-schema cache is keyed by tool and schema.
// Before, it was keyed by registered name, so after a refresh changed a tool's schema,
// proxy calls were still checked against the old one. Packed bodies (toolbody.go) carry the
// schema's sum, so the same holds for them.
func TestValidatorFollowsSchemaChanges(t *testing.T) {
	t.Parallel()
	mk := func(enum string, packed bool) *entry {
		es := []entry{{Name: "mcp__a__t", Server: "a", Tool: toolHead{Name: "t"},
			body: toolBody{raw: &cache.Tool{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"m":{"enum":["` + enum + `"]}}}`)}}}}
		if packed {
			if err := pack(es); err != nil {
				t.Fatal(err)
			}
		}
		return &es[0]
	}
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			var v validator
			old, cur := mk("old", packed), mk("new", packed)
			if msg := v.check(old, []byte(`{"m":"old"}`)); msg != "" {
				t.Fatalf("old schema: %s", msg)
			}
			if msg := v.check(cur, []byte(`{"m":"new"}`)); msg != "" {
				t.Fatalf("checked against the old schema after a change: %s", msg)
			}
			if msg := v.check(cur, []byte(`{"m":"old"}`)); msg == "" {
				t.Fatal("the new schema was not applied")
			}
			if n := len(v.compiled); n != 1 {
				t.Fatalf("the validator keeps %d schemas of one tool, want only the newest", n)
			}
			first := v.compiled[cur.ref()].sch
			if v.check(mk("new", packed), []byte(`{"m":"new"}`)); v.compiled[cur.ref()].sch != first {
				t.Fatal("the same schema was compiled again")
			}
		})
	}
}
