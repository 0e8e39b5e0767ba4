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
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" && t.Annotations != nil {
		desc = strings.TrimSpace(t.Annotations.Title)
	}
	if desc == "" {
		desc = "Tool " + t.Name + " of MCP server " + server + "."
	}
	desc = textcut.Truncate(desc, maxDescription)
	if hints := Hints(t.Annotations); len(hints) > 0 {
		desc += " [" + strings.Join(hints, ", ") + "]"
	}
	return desc
}
