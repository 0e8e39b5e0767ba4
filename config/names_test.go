package config

import (
	"strings"
	"testing"
)

// TestReservedServerNames: a server named like a /mcp word (help, all, status, -h, ...)
// could never be shown or addressed (`/mcp status` shows the status, `/mcp refresh all`
// means every server), so it is rejected with a problem that says how to fix it. Before,
// such names were accepted and silently shadowed.
func TestReservedServerNames(t *testing.T) {
	for _, name := range []string{"help", "all", "status", "-h", "--help", "Start", "refresh", "login", "logout", "setup", "stop", "restart", "trust", "untrust", "prompts", "prompt", "--global"} {
		t.Run(name, func(t *testing.T) {
			c, _ := setup(t, `{"mcpServers": {"`+name+`": {"command": "x"}, "fine": {"command": "y"}}}`, "", nil)
			s := mustServer(t, c, name)
			if s.Usable() || !strings.Contains(s.Err, "rename the server") {
				t.Errorf("reserved name accepted: usable=%v err=%q", s.Usable(), s.Err)
			}
			if len(c.Problems) != 1 || c.Problems[0].Server != name {
				t.Errorf("problems = %v", problemStrings(c))
			}
			if !mustServer(t, c, "fine").Usable() {
				t.Error("a good server next to it was rejected")
			}
		})
	}
	for _, name := range []string{"helper", "all-tools", "statusboard", "my-help", "h"} {
		if ReservedServerName(name) {
			t.Errorf("%q is reserved", name)
		}
	}
}
