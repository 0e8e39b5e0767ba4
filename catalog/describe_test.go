package catalog

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
)

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
		if got := Describe("s", &tc.tool); got != tc.want {
			t.Errorf("Describe = %q, want %q", got, tc.want)
		}
	}
	long := cache.Tool{Name: "t", Description: strings.Repeat("é", 3000)}
	if got := Describe("s", &long); len(got) > maxDescription || !strings.HasSuffix(got, "…") {
		t.Errorf("long description not capped on a rune boundary: %d bytes", len(got))
	}
	if SafeToRepeat(nil) || !SafeToRepeat(&cache.Annotations{IdempotentHint: &yes}) {
		t.Error("SafeToRepeat")
	}
}
