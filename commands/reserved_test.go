package commands

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestSubcommandsAreReservedNames: every word /mcp reads as a subcommand or target is a
// name the configuration refuses for a server, so no server is ever shadowed.
func TestSubcommandsAreReservedNames(t *testing.T) {
	words := map[string]bool{"all": true}
	for _, line := range strings.Split(helpText, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "/mcp" && f[1] != "—" && !strings.HasPrefix(f[1], "<") && !strings.HasPrefix(f[1], "[") {
			words[f[1]] = true
		}
	}
	words["-h"], words["--help"] = true, true
	if len(words) < 10 {
		t.Fatalf("found only %v in the help text", words)
	}
	for w := range words {
		if !config.ReservedServerName(w) {
			t.Errorf("/mcp %s would shadow a server named %q", w, w)
		}
	}
}
