package catalog

import (
	"strings"
	"testing"
)

// fuzzRefs turns "server\ttool" lines into refs.
func fuzzRefs(s string) []ToolRef {
	var refs []ToolRef
	for _, line := range strings.Split(s, "\n") {
		if server, tool, ok := strings.Cut(line, "\t"); ok {
			refs = append(refs, ToolRef{Server: server, Tool: tool})
		}
	}
	return refs
}

// FuzzAssignNames: for any two successive tool lists (a startup, then a refresh), every
// name is unique, at most 64 characters of [A-Za-z0-9_] starting with mcp__, a name given
// at startup stays with its tool after the refresh, and the same history gives the same
// names, by ref (Assign) as by index (Names).
func FuzzAssignNames(f *testing.F) {
	f.Add("a\tx-y", "a\tx y\na\tx-y")
	f.Add("github\tcreate_issue\na-b\tx\na_b\tx", "a_b\tx\nsrv\tget-item\nsrv\tget_item")
	f.Add("s\t"+strings.Repeat("very_long_tool_name_", 5)+"1", "s\t"+strings.Repeat("very_long_tool_name_", 5)+"2")
	f.Add("a\tx y\na\tx-y", "a\tx_y_"+shortHash("a", "x-y"))
	f.Add("\t\n2fa\t\u00e9", "\t")
	f.Fuzz(func(t *testing.T, first, second string) {
		check := func(names map[ToolRef]string) {
			seen := map[string]ToolRef{}
			for ref, n := range names {
				if !validName.MatchString(n) || !strings.HasPrefix(n, Prefix) {
					t.Fatalf("%v got invalid name %q", ref, n)
				}
				if other, dup := seen[n]; dup {
					t.Fatalf("%v and %v share %q", ref, other, n)
				}
				seen[n] = ref
			}
		}
		n := NewNamer()
		a, _ := n.Assign(fuzzRefs(first))
		check(a)
		b, _ := n.Assign(fuzzRefs(second))
		check(b)
		for ref, name := range a {
			if got, ok := b[ref]; ok && got != name {
				t.Fatalf("%v moved from %q to %q", ref, name, got)
			}
		}
		// Names of both rounds together are unique too: a name is never given to two tools.
		all := map[string]ToolRef{}
		for _, m := range []map[ToolRef]string{a, b} {
			for ref, name := range m {
				if other, ok := all[name]; ok && other != ref {
					t.Fatalf("%q given to %v and %v", name, other, ref)
				}
				all[name] = ref
			}
		}
		again := NewNamer()
		a2, _ := again.Assign(fuzzRefs(first))
		b2, _ := again.Assign(fuzzRefs(second))
		// Names gives each ref, by index, the name Assign gives it.
		byIndex := NewNamer()
		for round, m := range []map[ToolRef]string{a, b} {
			refs := fuzzRefs([]string{first, second}[round])
			names, _ := byIndex.Names(refs)
			for i, ref := range refs {
				if names[i] != m[ref] {
					t.Fatalf("round %d: Names gives %v %q, Assign %q", round, ref, names[i], m[ref])
				}
			}
		}
		for ref, name := range a {
			if a2[ref] != name {
				t.Fatalf("not deterministic: %v %q vs %q", ref, name, a2[ref])
			}
		}
		for ref, name := range b {
			if b2[ref] != name {
				t.Fatalf("not deterministic: %v %q vs %q", ref, name, b2[ref])
			}
		}
	})
}
