package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/words"
)

// maxNamed is how many tool names a change's paragraph names in each list; the rest are
// counted (a server that changed hundreds of tools still gets a short note).
const maxNamed = 8

// maxShownDescription bounds each description text /mcp <server> shows for a changed tool:
// enough to read an instruction planted in it, not a whole manual.
const maxShownDescription = 1500

// ToolChange is how one server's tools differ from what it had: from the tools the user
// approved (Pinned: the added and changed ones are held back until the user approves them
// again), or, for a server whose tools are not pinned, from the tools cached before (for
// information: nothing is held back).
type ToolChange struct {
	Server string
	Pinned bool
	// CanPin: the tools are not pinned, and "pinTools" in the server's entry would pin
	// them (a global server).
	CanPin bool
	// Tools by name, each list sorted. A renamed tool is a removed one plus an added one.
	Added, Changed, Removed []string
	// Texts are the added and changed tools' definitions, old and new, for /mcp <server>
	// (Host.ToolChanges); notes leave them out.
	Texts []ToolText
}

// Held lists the tools held back: the added and changed ones of a pinned server.
func (c *ToolChange) Held() []string {
	if c == nil || !c.Pinned {
		return nil
	}
	return append(append([]string(nil), c.Changed...), c.Added...)
}

// ToolText is one added or changed tool as /mcp <server> shows it.
type ToolText struct {
	Name string
	// Parts names what changed ("description", "input schema", ...); nil for a new tool,
	// or when the approved definition is not kept (OldKnown false).
	Parts []string
	// Old is the approved description (when OldKnown), New the one listed now.
	Old, New string
	OldKnown bool
}

// ToolChangeText words a server's tool change in one paragraph, for a note or a refresh's
// answer.
func ToolChangeText(sf Surface, c ToolChange) string {
	var what []string
	if len(c.Changed) > 0 {
		what = append(what, "changed "+nameList(c.Changed))
	}
	if len(c.Added) > 0 {
		what = append(what, "new "+nameList(c.Added))
	}
	if len(c.Removed) > 0 {
		what = append(what, "removed "+nameList(c.Removed))
	}
	list := strings.Join(what, "; ")
	if !c.Pinned {
		text := fmt.Sprintf("MCP server %q changed its tools: %s.", c.Server, list)
		if c.CanPin {
			text += " Set \"pinTools\": true on it to hold such changes back until you approve them."
		}
		return text
	}
	if len(c.Held()) == 0 {
		return fmt.Sprintf("MCP server %q changed its tools since you approved them: %s. Nothing is held back; %s approves the current set.", c.Server, list, sf.Cmd("trust", c.Server))
	}
	return fmt.Sprintf("MCP server %q changed its tools since you approved them: %s. The changed and new tools are held back (not registered, not callable) until you approve them: review with %s, approve with %s, then %s.",
		c.Server, list, sf.Cmd("", c.Server), sf.Cmd("trust", c.Server), sf.ReloadCmd())
}

// nameList joins names (each as toolName shows it), naming at most maxNamed and counting
// the rest.
func nameList(names []string) string {
	shown := make([]string, 0, min(len(names), maxNamed))
	for _, n := range names[:min(len(names), maxNamed)] {
		shown = append(shown, toolName(n))
	}
	if len(names) <= maxNamed {
		return strings.Join(shown, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(shown, ", "), len(names)-maxNamed)
}

// toolName shows a tool name as the server gave it, quoted when it holds anything but
// letters, digits and the punctuation tool names use: a name is the server's text too, and
// must not pass for the bridge's words or reach the terminal as control characters.
func toolName(n string) string {
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:/", r)) {
			return strconv.Quote(n)
		}
	}
	if n == "" {
		return `""`
	}
	return n
}

// toolChangeLines is the part of /mcp <server> that shows how its tools differ from the
// approved ones: each changed tool with its approved and its new description, the new
// tools with theirs, the removed names ("" when nothing differs).
func toolChangeLines(sf Surface, c *ToolChange) string {
	if c == nil || len(c.Added)+len(c.Changed)+len(c.Removed) == 0 {
		return ""
	}
	var sb strings.Builder
	if held := c.Held(); len(held) > 0 {
		fmt.Fprintf(&sb, "  held back:  %s changed or added since you approved them; not registered or callable until %s\n", words.Count(len(held), "tool"), sf.Cmd("trust", c.Server))
	}
	texts := map[string]ToolText{}
	for _, t := range c.Texts {
		texts[t.Name] = t
	}
	for _, n := range c.Changed {
		t := texts[n]
		what := "changed"
		if len(t.Parts) > 0 {
			what += ": " + strings.Join(t.Parts, ", ")
		}
		fmt.Fprintf(&sb, "    %s (%s)\n", toolName(n), what)
		if t.OldKnown {
			fmt.Fprintf(&sb, "      approved: %s\n", quoteDescription(t.Old))
		} else {
			sb.WriteString("      approved: (its text is not kept)\n")
		}
		fmt.Fprintf(&sb, "      now:      %s\n", quoteDescription(t.New))
	}
	for _, n := range c.Added {
		fmt.Fprintf(&sb, "    %s (new)\n      now:      %s\n", toolName(n), quoteDescription(texts[n].New))
	}
	if len(c.Removed) > 0 {
		removed := make([]string, len(c.Removed))
		for i, n := range c.Removed {
			removed[i] = toolName(n)
		}
		fmt.Fprintf(&sb, "  removed:    %s (approved, no longer listed)\n", strings.Join(removed, ", "))
	}
	return sb.String()
}

// quoteDescription shows a server's text quoted, so that control characters and line
// breaks in it are seen for what they are rather than acted on by the terminal.
func quoteDescription(s string) string {
	return strconv.Quote(textcut.Truncate(s, maxShownDescription))
}

// WithoutHeld is names without the servers whose changes include held-back tools: their
// own paragraph (ToolChangeText) says what to do, and a reload loads nothing of them.
func WithoutHeld(names []string, changes []ToolChange) []string {
	held := map[string]bool{}
	for i := range changes {
		if len(changes[i].Held()) > 0 {
			held[changes[i].Server] = true
		}
	}
	var out []string
	for _, n := range names {
		if !held[n] {
			out = append(out, n)
		}
	}
	return out
}
