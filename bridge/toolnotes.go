package bridge

import (
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// maxNoteList bounds a list of tool names in a /mcp <server> line.
const maxNoteList = 1000

// toolNotesText is what /mcp <server> adds about the server's cached tools: those the
// model cannot load, and why, and what the injection audit found in their descriptions.
func (b *Bridge) toolNotesText(server string) string {
	return b.unregisteredText(server) + b.findingsDetail(server)
}

// unregisteredText names the server's tools the model cannot load, and why ("" when
// there are none, in proxy mode, where every tool is called through mcp__call_tool, and
// before the catalog is loaded).
func (b *Bridge) unregisteredText(server string) string {
	cat := b.cats.Loaded()
	if cat == nil || b.mode == ModeProxy {
		return ""
	}
	var never, later []string
	for i := range cat.Entries {
		e := &cat.Entries[i]
		switch {
		case e.Server != server || e.Registered():
		case cat.Unregistered(e) != "":
			never = append(never, fmt.Sprintf("%s (%s)", e.Tool.Name, cat.Unregistered(e)))
		default:
			later = append(later, e.Tool.Name)
		}
	}
	var sb strings.Builder
	if len(never) > 0 {
		fmt.Fprintf(&sb, "\n  not registered: %d the model cannot load: %s", len(never), textcut.Truncate(strings.Join(never, "; "), maxNoteList))
	}
	if len(later) > 0 {
		fmt.Fprintf(&sb, "\n  not registered yet: %d listed after startup (%s registers them): %s", len(later),
			b.opts.Surface.ReloadCmd(), textcut.Truncate(strings.Join(later, ", "), maxNoteList))
	}
	return sb.String()
}
