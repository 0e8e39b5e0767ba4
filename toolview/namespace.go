package toolview

import (
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// NamespaceTextMax bounds each piece of text a namespace carries: a NEW host reads a
// namespace's description and instructions from every one of its tools' registrations,
// so each piece is repeated once per tool.
const NamespaceTextMax = 256

// NamespaceDescription is the discovery text of a server's namespace (a NEW host's
// namespace_description, which its codemode shows under the namespace's heading and
// ranks tools by): the server's directory line, as the search tool's description has it,
// then what the server's MCP initialize said about using it, on one line, sanitized (a
// cache entry written before the session sanitized it holds it as sent) and cut to
// NamespaceTextMax.
func NamespaceDescription(d DirEntry, serverInstructions string) string {
	s := fmt.Sprintf("MCP server %s: %d tools", d.Server, d.Tools)
	if d.Tools == 1 {
		s = fmt.Sprintf("MCP server %s: 1 tool", d.Server)
	}
	if len(d.Words) > 0 {
		s += " (" + strings.Join(d.Words, ", ") + ")"
	}
	s += "."
	if in := strings.Join(strings.Fields(safetext.Sanitize(serverInstructions)), " "); in != "" {
		s += " " + in
	}
	return textcut.Truncate(s, NamespaceTextMax)
}

// NamespaceInstructions is the user's instructions for a server (its config entry's
// "instructions") as its namespace carries them: sanitized as the search results show them
// (a project file's text is no more visible to its reader than a server's), trimmed and cut
// to NamespaceTextMax. The search results still show it up to the bridge's own, larger
// bound.
func NamespaceInstructions(userInstructions string) string {
	return textcut.Truncate(strings.TrimSpace(safetext.Sanitize(userInstructions)), NamespaceTextMax)
}
