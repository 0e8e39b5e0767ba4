package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// describe is the registered description whole, as the host reads it.
func describe(server string, t *cache.Tool) string {
	desc, hints := DescribeParts(server, t)
	return desc + hints
}

func TestDescribeAndHints(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		tool cache.Tool
		want string
	}{
		{cache.Tool{Name: "t", Description: "Reads.", Annotations: &cache.Annotations{ReadOnlyHint: &yes, OpenWorldHint: &no}}, "Reads. [read-only]"},
		{cache.Tool{Name: "t", Description: "Deletes.", Annotations: &cache.Annotations{DestructiveHint: &yes, IdempotentHint: &yes, OpenWorldHint: &yes}}, "Deletes. [destructive, idempotent, open-world]"},
		{cache.Tool{Name: "t", Title: "Title only"}, "Title only"},
		{cache.Tool{Name: "t"}, "Tool t of MCP server s."},
	}
	for _, tc := range cases {
		if got := describe("s", &tc.tool); got != tc.want {
			t.Errorf("description = %q, want %q", got, tc.want)
		}
	}
	long := cache.Tool{Name: "t", Description: strings.Repeat("é", 3000)}
	if got := describe("s", &long); len(got) > maxDescription || !strings.HasSuffix(got, "…") {
		t.Errorf("long description not capped on a rune boundary: %d bytes", len(got))
	}
	if SafeToRepeat(nil) || !SafeToRepeat(&cache.Annotations{IdempotentHint: &yes}) {
		t.Error("SafeToRepeat")
	}
}

// TestDescribeParts: for every annotation set (each hint unset, false or true, and none
// at all) Hints gives the set's words, the parts are the description and " [" + those
// words joined by ", " + "]" (or nothing without hints).
func TestDescribeParts(t *testing.T) {
	t.Parallel()
	vals := []*bool{nil, new(bool), new(bool)}
	*vals[2] = true
	sets := []*cache.Annotations{nil}
	for k := range 81 {
		sets = append(sets, &cache.Annotations{ReadOnlyHint: vals[k%3], DestructiveHint: vals[k/3%3], IdempotentHint: vals[k/9%3], OpenWorldHint: vals[k/27%3]})
	}
	for i, a := range sets {
		tool := cache.Tool{Name: "t", Description: " Does t. ", Annotations: a}
		desc, hints := DescribeParts("s", &tool)
		// The rule spelled out: each explicit true hint in order, read-only over destructive.
		var words []string
		if a != nil {
			ro := a.ReadOnlyHint != nil && *a.ReadOnlyHint
			for _, h := range []struct {
				on   *bool
				word string
			}{{a.ReadOnlyHint, "read-only"}, {a.DestructiveHint, "destructive"}, {a.IdempotentHint, "idempotent"}, {a.OpenWorldHint, "open-world"}} {
				if h.on != nil && *h.on && !(ro && h.word == "destructive") {
					words = append(words, h.word)
				}
			}
		}
		if h := Hints(a); !slices.Equal(h, words) {
			t.Errorf("set %d: Hints %q, want %q", i, h, words)
		}
		want := ""
		if len(words) > 0 {
			want = " [" + strings.Join(words, ", ") + "]"
		}
		if desc != "Does t." || hints != want {
			t.Errorf("set %d: parts %q, %q; want %q, %q", i, desc, hints, "Does t.", want)
		}
	}
}
