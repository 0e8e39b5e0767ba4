package catalog

import (
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// maxDescription caps a registered tool description; a few servers ship multi-kilobyte
// descriptions that would cost tokens on every request once activated.
const maxDescription = 2048

// Hints lists the annotation words for a tool: read-only, destructive, idempotent,
// open-world, in that order. Only explicit annotations count.
func Hints(a *cache.Annotations) []string {
	return slices.Clone(hintWords[hintSet(a)])
}

// hintSet numbers the hint words a says, as an index into hintWords and hintSuffixes:
// the one place that decides which words a set of annotations gives, and in what order.
// Read-only wins over destructive, as a tool cannot be both.
func hintSet(a *cache.Annotations) int {
	if a == nil {
		return 0
	}
	k := 0
	switch {
	case isTrue(a.ReadOnlyHint):
		k = 1
	case isTrue(a.DestructiveHint):
		k = 2
	}
	if isTrue(a.IdempotentHint) {
		k += 3
	}
	if isTrue(a.OpenWorldHint) {
		k += 6
	}
	return k
}

// hintWords holds each hint set's words, by hintSet.
var hintWords = [...][]string{
	nil, {"read-only"}, {"destructive"},
	{"idempotent"}, {"read-only", "idempotent"}, {"destructive", "idempotent"},
	{"open-world"}, {"read-only", "open-world"}, {"destructive", "open-world"},
	{"idempotent", "open-world"}, {"read-only", "idempotent", "open-world"}, {"destructive", "idempotent", "open-world"},
}

// hintSuffixes holds each hint set's words as the description's suffix, by hintSet:
// made once, so no tool's description makes its own.
var hintSuffixes = func() (s [len(hintWords)]string) {
	for k, w := range hintWords {
		if len(w) > 0 {
			s[k] = " [" + strings.Join(w, ", ") + "]"
		}
	}
	return s
}()

func isTrue(b *bool) bool { return b != nil && *b }

// SafeToRepeat reports whether a call may be sent again after a failure without risk of
// applying it twice: the server marked the tool read-only or idempotent.
func SafeToRepeat(a *cache.Annotations) bool {
	return a != nil && (isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint))
}

// DescribeParts gives the description registered for a tool in its two parts: the MCP
// description (or its title, or a fallback naming the server), capped, and the suffix of
// its annotation hints ("" for none) that follows it. An encoder appends both without
// joining them into a new string first (every tool of a start has its description
// encoded).
func DescribeParts(server string, t *cache.Tool) (desc, hints string) {
	desc = strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" && t.Annotations != nil {
		desc = strings.TrimSpace(t.Annotations.Title)
	}
	if desc == "" {
		desc = "Tool " + t.Name + " of MCP server " + server + "."
	}
	return textcut.Truncate(desc, maxDescription), hintSuffixes[hintSet(t.Annotations)]
}
