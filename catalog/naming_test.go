package catalog

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"read_file":          "read_file",
		"resolve-library-id": "resolve_library_id",
		"a.b-c d":            "a_b_c_d",
		"2fa":                "t_2fa",
		"":                   "unnamed",
		"héllo":              "h_llo",
		"CamelCase":          "CamelCase",
	}
	for in, want := range cases {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func TestAssignNamesLengthAndCollisions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very_long_tool_name_", 5)
	refs := []ToolRef{
		{"github", "create_issue"},
		{"a-b", "x"}, {"a_b", "x"}, // sanitise alike
		{"srv", "get-item"}, {"srv", "get_item"}, // sanitise alike within one server
		{"some-really-long-server-name", long + "1"},
		{"some-really-long-server-name", long + "2"}, // same 64-char prefix
	}
	names, collisions := NewNamer().Assign(refs)
	seen := map[string]ToolRef{}
	for ref, n := range names {
		if !validName.MatchString(n) || !strings.HasPrefix(n, Prefix) {
			t.Errorf("%v got invalid name %q", ref, n)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%v and %v share %q", ref, other, n)
		}
		seen[n] = ref
	}
	if names[ToolRef{"github", "create_issue"}] != "mcp__github__create_issue" {
		t.Errorf("plain name changed: %q", names[ToolRef{"github", "create_issue"}])
	}
	// The first in (server, tool) order keeps the plain name.
	if names[ToolRef{"a-b", "x"}] != "mcp__a_b__x" || names[ToolRef{"a_b", "x"}] == "mcp__a_b__x" {
		t.Errorf("collision winner not deterministic: %v", names)
	}
	if len(collisions) != 2 {
		t.Errorf("want 2 logged collisions, got %v", collisions)
	}
	// Any input order gives the same names.
	for i := 0; i < 20; i++ {
		shuffled := append([]ToolRef(nil), refs...)
		rand.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		again, _ := NewNamer().Assign(shuffled)
		for ref, n := range names {
			if again[ref] != n {
				t.Fatalf("order-dependent name for %v: %q vs %q", ref, again[ref], n)
			}
		}
	}
}

// TestNamerKeepsNames: a name once given stays with its tool. Before, assigning names
// afresh on every refresh moved mcp__a__x_y from a/x-y to a newly listed a/"x y" (which
// sorts first), so a host call reached the other tool.
func TestNamerKeepsNames(t *testing.T) {
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
	suffixed := "x_y_" + shortHash("a", "x-y")
	refs := []ToolRef{{"a", "x y"}, {"a", "x-y"}, {"a", suffixed}}
	names, _ := NewNamer().Assign(refs)
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
