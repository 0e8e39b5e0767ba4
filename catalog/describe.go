package catalog

import (
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
	if a == nil {
		return nil
	}
	var out []string
	if isTrue(a.ReadOnlyHint) {
		out = append(out, "read-only")
	}
	if isTrue(a.DestructiveHint) && !isTrue(a.ReadOnlyHint) {
		out = append(out, "destructive")
	}
	if isTrue(a.IdempotentHint) {
		out = append(out, "idempotent")
	}
	if isTrue(a.OpenWorldHint) {
		out = append(out, "open-world")
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

// SafeToRepeat reports whether a call may be sent again after a failure without risk of
// applying it twice: the server marked the tool read-only or idempotent.
func SafeToRepeat(a *cache.Annotations) bool {
	return a != nil && (isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint))
}

// Describe builds the description registered for a tool: the MCP description (or its
// title, or a fallback naming the server), capped, with the annotation hints as a suffix.
func Describe(server string, t *cache.Tool) string {
	desc, hints := DescribeParts(server, t)
	if hints == "" {
		return desc
	}
	return desc + hints
}

// DescribeParts is Describe in its two parts: the description, and the hints suffix ("" for
// none) that follows it. An encoder appends both without joining them into a new string
// first (every tool of a start has its description encoded).
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
	return textcut.Truncate(desc, maxDescription), hintSuffix(t.Annotations)
}

// hintSuffix is " [" + the Hints of a joined by ", " + "]", "" when there are none: one of
// the few such strings there are, none made anew.
func hintSuffix(a *cache.Annotations) string {
	if a == nil {
		return ""
	}
	ro, io := isTrue(a.ReadOnlyHint), isTrue(a.IdempotentHint)
	k := 0
	switch {
	case ro:
		k = 1
	case isTrue(a.DestructiveHint):
		k = 2
	}
	if io {
		k += 3
	}
	if isTrue(a.OpenWorldHint) {
		k += 6
	}
	return [...]string{
		"", " [read-only]", " [destructive]",
		" [idempotent]", " [read-only, idempotent]", " [destructive, idempotent]",
		" [open-world]", " [read-only, open-world]", " [destructive, open-world]",
		" [idempotent, open-world]", " [read-only, idempotent, open-world]", " [destructive, idempotent, open-world]",
	}[k]
}
