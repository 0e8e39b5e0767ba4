package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLIDoctorNamesSkippedTools: doctor names the tools a server listed that the bridge
// cannot offer, each with why (a tool whose x-mcp-header annotations are invalid is one
// of them on a modern HTTP connection), in words and as JSON; before, only /mcp <server>
// named them.
func TestCLIDoctorNamesSkippedTools(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{
		"odd": e.fake("-name", "odd", "-raw-tool", `strschema="just a string"`),
	})
	r := e.run("doctor")
	expectCode(t, r, 0, "doctor")
	if !strings.Contains(r.stdout, "    skipped: 1 not offered: strschema (input schema") {
		t.Errorf("doctor does not name the skipped tool:\n%s", r.stdout)
	}
	r = e.run("doctor", "--json")
	var rep struct {
		Servers []struct {
			Name, Skipped string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	if len(rep.Servers) != 1 || !strings.Contains(rep.Servers[0].Skipped, "strschema (") {
		t.Errorf("doctor --json: %+v", rep.Servers)
	}
}
