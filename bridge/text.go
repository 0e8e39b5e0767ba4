package bridge

import "github.com/zot-mcp/mcp-bridge/internal/textcut"

// FirstLine returns the first sentence or line of s, capped at max bytes on a rune boundary.
func FirstLine(s string, max int) string { return textcut.FirstLine(s, max) }

// Truncate cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func Truncate(s string, max int) string { return textcut.Truncate(s, max) }
