package bridge

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
	names, collisions := AssignNames(refs)
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
		again, _ := AssignNames(shuffled)
		for ref, n := range names {
			if again[ref] != n {
				t.Fatalf("order-dependent name for %v: %q vs %q", ref, again[ref], n)
			}
		}
	}
}
