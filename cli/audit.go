package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	"github.com/zot-mcp/mcp-bridge/toolaudit"
)

// doctorShownFindings is how many of a server's findings doctor shows; --tools lists all.
const doctorShownFindings = 3

// auditNote says what the findings are, wherever they are listed.
const auditNote = "a heuristic: a reason to read the description, not proof; the bridge offers every tool as its server describes it"

// findingStrings words findings for doctor.
func findingStrings(fs []toolaudit.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// printFindings prints a server's findings under its doctor line: a few, and where the
// rest are.
func printFindings(out io.Writer, findings []string) {
	if len(findings) == 0 {
		return
	}
	fmt.Fprintf(out, "    %s in its tool descriptions (%s):\n", words.Count(len(findings), "finding"), auditNote)
	for i, f := range findings {
		if i == doctorShownFindings {
			fmt.Fprintf(out, "      … and %d more: mcp-bridge doctor --tools lists them\n", len(findings)-i)
			break
		}
		fmt.Fprintf(out, "      %s\n", f)
	}
}

// doctorTools is doctor --tools: every finding of the injection audit for the cached tools
// of the configured servers, by server. The findings are a heuristic, so they do not
// make the exit status fail.
func doctorTools(b *bridge.Bridge, stdout, stderr io.Writer, asJSON bool) int {
	all := b.CachedToolFindings()
	if asJSON {
		if all == nil {
			all = map[string][]toolaudit.Finding{}
		}
		return writeJSON(stdout, stderr, all)
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "No findings in the cached tools' descriptions (the audit is a heuristic; run mcp-bridge refresh to audit what the servers list now).")
		return 0
	}
	fmt.Fprintf(stdout, "Findings in the cached tools' descriptions (%s):\n", auditNote)
	for _, name := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(stdout, "  %s:\n", name)
		for _, f := range all[name] {
			fmt.Fprintf(stdout, "    %s\n", f)
		}
	}
	return 0
}
