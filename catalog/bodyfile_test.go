package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"weak"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// bulkyTools is n servers' tools whose bodies fill several blocks.
func bulkyTools(servers, perServer int) map[string][]cache.Tool {
	long := strings.Repeat("a long description of what this tool does ", 60)
	ts := map[string][]cache.Tool{}
	for s := range servers {
		var list []cache.Tool
		for i := range perServer {
			list = append(list, cache.Tool{Name: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("T%d", i),
				Description: fmt.Sprintf("%d/%d %s", s, i, long[:(i*131)%len(long)]),
				InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d_%d":{"type":"integer"}}}`, s, i))})
		}
		ts[fmt.Sprintf("s%d", s)] = list
	}
	return ts
}

// blocksOf returns the distinct blocks of a catalog's entries.
func blocksOf(t *testing.T, cat *Catalog) []*bodyBlock {
	t.Helper()
	seen := map[*bodyBlock]bool{}
	var out []*bodyBlock
	for i := range cat.Entries {
		b := cat.Entries[i].body.blk
		if b == nil {
			t.Fatalf("%s is not packed", cat.Entries[i].Name)
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// TestBodiesKeptInFile: with a directory for them, packing leaves no tool body on the
// heap (every block is in the owner's file, which no directory lists), every body reads
// back as it was, and a refresh's new bodies go to the same file.
func TestBodiesKeptInFile(t *testing.T) {
	dir := t.TempDir()
	o := catalogOwner(t)
	o.KeepBodiesIn(dir)
	before, _ := o.Change(Change{Replace: true, PackLater: true, Tools: bulkyTools(4, 60)})
	want := map[string]cache.Tool{}
	for i := range before.Entries {
		want[before.Entries[i].Name] = before.Entries[i].CacheTool()
	}
	after := o.Pack()
	blocks := blocksOf(t, after)
	if len(blocks) < 2 {
		t.Fatalf("%d blocks; want several", len(blocks))
	}
	for _, b := range blocks {
		if b.packed != nil || b.span.f == nil || b.span.n == 0 {
			t.Fatalf("a block is on the heap (%d bytes), not in the file", len(b.packed))
		}
	}
	check := func(cat *Catalog) {
		t.Helper()
		for i := range cat.Entries {
			e := &cat.Entries[i]
			w, ok := want[e.Name]
			if !ok {
				continue
			}
			// Read the file, not a block a reader before left in memory.
			e.body.blk.plain = weakNil()
			if got := e.CacheTool(); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s read back as %+v, was %+v", e.Name, got, w)
			}
		}
	}
	check(after)
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Fatalf("the bodies' file is left in the directory: %v", names)
	}
	fresh := tools("n1", "n2")
	cat, _ := o.Change(Change{Tools: map[string][]cache.Tool{"s9": fresh}})
	for i := range cat.Entries {
		e := &cat.Entries[i]
		if e.Server == "s9" {
			if e.body.blk.packed != nil || e.body.blk.span.f != blocks[0].span.f {
				t.Fatalf("%s: a refresh's body is not in the owner's file", e.Name)
			}
			if got := e.CacheTool(); got.Description != "does "+e.Tool.Name {
				t.Fatalf("%s read back as %+v", e.Name, got)
			}
		}
	}
	check(cat)
}

// TestBodiesFileDamaged: a block whose bytes in the file changed, or that cannot be read,
// gives an error naming the damage, and CacheTool falls back to the names only; the other
// blocks read as before.
func TestBodiesFileDamaged(t *testing.T) {
	o := catalogOwner(t)
	o.KeepBodiesIn(t.TempDir())
	cat, _ := o.Change(Change{Replace: true, Tools: bulkyTools(3, 60)})
	blocks := blocksOf(t, cat)
	first, second := blocks[0], blocks[1]
	if _, err := first.span.f.WriteAt([]byte{0xff, 0x00, 0xff}, first.span.at+1); err != nil {
		t.Fatal(err)
	}
	var damaged, intact *Tool
	for i := range cat.Entries {
		e := &cat.Entries[i]
		e.body.blk.plain = weakNil()
		switch e.body.blk {
		case first:
			damaged = e
		case second:
			intact = e
		}
	}
	if _, err := damaged.body.load(); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("load of a block changed in the file: %v", err)
	}
	if got := damaged.CacheTool(); got.Name != damaged.Tool.Name || got.Description != "" || got.InputSchema != nil {
		t.Fatalf("CacheTool of a damaged block: %+v", got)
	}
	if got := intact.CacheTool(); !strings.HasPrefix(got.Description, strings.TrimPrefix(intact.Server, "s")+"/") {
		t.Fatalf("a block beside the damaged one reads as %+v", got)
	}
	// Cut short: the read fails.
	if err := first.span.f.Truncate(second.span.at); err != nil {
		t.Fatal(err)
	}
	intact.body.blk.plain = weakNil()
	if _, err := intact.body.load(); err == nil || !strings.Contains(err.Error(), "reading a block") {
		t.Fatalf("load of a block past the file's end: %v", err)
	}
}

// TestBodiesFileUnavailable: where the directory does not exist, bodies stay on the heap
// and read as before; once it exists, the next pack puts its bodies in a file.
func TestBodiesFileUnavailable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	o := catalogOwner(t)
	o.KeepBodiesIn(dir)
	cat, _ := o.Change(Change{Replace: true, Tools: map[string][]cache.Tool{"a": tools("x", "y")}})
	for _, b := range blocksOf(t, cat) {
		if b.packed == nil {
			t.Fatal("a block went to a file that cannot exist")
		}
	}
	if got := cat.Entries[0].CacheTool(); got.Description != "does "+cat.Entries[0].Tool.Name {
		t.Fatalf("a heap block reads as %+v", got)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cat, _ = o.Change(Change{Tools: map[string][]cache.Tool{"b": tools("z")}})
	e, _ := cat.LookupRef("b", "z")
	if e.body.blk.packed != nil || e.body.blk.span.f == nil {
		t.Fatal("with the directory made, a new body is still on the heap")
	}
	if got := e.CacheTool(); got.Description != "does z" {
		t.Fatalf("read back as %+v", got)
	}
}

// weakNil is an empty weak pointer: a block set to it is read from where it is kept.
func weakNil() weak.Pointer[plainBlock] { return weak.Pointer[plainBlock]{} }
