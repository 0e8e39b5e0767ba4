package commands

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/config"
)

// LineWidth is the terminal width /mcp output is laid out for: zot shows command output
// as it is, and a longer line is cut on a 100-column terminal.
const LineWidth = 100

// wrapLines breaks every line longer than width at spaces; continuation lines are indented
// four columns deeper than the line they continue, and spacing within a line is kept. A word longer than a whole line (a long
// path) is cut, so that no line exceeds width.
func wrapLines(text string, width int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if utf8.RuneCountInString(line) <= width {
			out = append(out, line)
			continue
		}
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		cont := lead + "    "
		if len(cont) > width/2 {
			cont = "    "
		}
		cur, empty := lead, true // empty: cur holds only indentation
		// Split on single spaces so that runs of spaces (aligned columns) stay as written.
		for _, w := range strings.Split(line[len(lead):], " ") {
			if w == "" && empty {
				continue
			}
			for {
				sep := " "
				if empty {
					sep = ""
				}
				if utf8.RuneCountInString(cur)+len(sep)+utf8.RuneCountInString(w) <= width {
					cur, empty = cur+sep+w, false
					break
				}
				if !empty {
					out = append(out, cur)
					cur, empty = cont, true
					continue
				}
				r := []rune(w)
				room := width - utf8.RuneCountInString(cur)
				out = append(out, cur+string(r[:room]))
				w, cur = string(r[room:]), cont
			}
		}
		out = append(out, strings.TrimRight(cur, " "))
	}
	return strings.Join(out, "\n")
}

// modeBrief is the short reason for the exposure mode on the /mcp status line; doctor
// gives the long one.
func modeBrief(cfg *config.Config, deferred bool) string {
	switch {
	case cfg.ToolExposureSource != "" && cfg.ToolExposure != config.ToolExposureAuto && cfg.ToolExposure != "":
		return fmt.Sprintf("toolExposure set in %s", cfg.ToolExposureSource)
	case deferred:
		return "zot hides the tools until a search activates them"
	}
	return "zot without capabilities; toolExposure overrides"
}
