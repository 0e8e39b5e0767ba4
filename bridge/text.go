package bridge

import (
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// FirstLine returns the first sentence or line of s, capped at max bytes on a rune boundary.
func FirstLine(s string, max int) string { return textcut.FirstLine(s, max) }

// Truncate cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func Truncate(s string, max int) string { return textcut.Truncate(s, max) }

// ErrorResult is an is_error result with one text block (toolresult.Error).
func ErrorResult(format string, args ...any) extension.ToolResult {
	return toolresult.Error(format, args...)
}

// TextResult is a plain successful result with one text block (toolresult.Text).
func TextResult(s string) extension.ToolResult { return toolresult.Text(s) }
