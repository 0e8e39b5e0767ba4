package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// TestEnvPolicy: a stdio server sees the bridge's secrets only under inherit; project
// servers default to the minimal set, as the server process sees it. Before, every server inherited everything (the
// everything server's get_env returned the provider API key).
func TestEnvPolicy(t *testing.T) {
	const secretVar, secret = "ZOT_BRIDGE_TEST_API_TOKEN", "s3cret-value-for-test"
	t.Setenv(secretVar, secret)
	e := newTestEnv(t)
	// A wire test: the environment is what only a process has, and what a process sees
	// is the guarantee (a pipe would test the policy's arithmetic only).
	e.useProcesses()
	with := func(extra map[string]any) map[string]any { return mergeMap(e.server(), extra) }
	e.write(map[string]any{
		"default":  e.server(),
		"minimal":  with(map[string]any{"envPolicy": "minimal", "env": map[string]any{"OWN": "mine"}}),
		"listed":   with(map[string]any{"envPolicy": []string{secretVar}}),
		"inherit":  with(map[string]any{"envPolicy": "inherit"}),
		"badvalue": with(map[string]any{"envPolicy": "everything"}),
	}, map[string]any{"trustProjectServers": true}) // approval is not what this test is about
	proj, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"proj":        e.server(),
		"projInherit": with(map[string]any{"envPolicy": "inherit"}),
	}})
	if err := os.MkdirAll(filepath.Join(e.project, ".zot"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.project, ".zot", "mcp.json"), proj, 0o600); err != nil {
		t.Fatal(err)
	}
	b := e.bridge(extension.GenNew)
	tests := []struct {
		server, name, want string
	}{
		{"default", secretVar, secret}, // global servers keep today's behaviour
		{"inherit", secretVar, secret},
		{"minimal", secretVar, ""},
		{"minimal", "OWN", "mine"},
		{"minimal", "PATH", os.Getenv("PATH")},
		{"listed", secretVar, secret},
		{"proj", secretVar, ""},
		{"proj", "HOME", os.Getenv("HOME")},
		{"projInherit", secretVar, secret},
	}
	for _, tt := range tests {
		t.Run(tt.server+"/"+tt.name, func(t *testing.T) {
			if got := mustCall(t, e.srv(b, tt.server), "env", map[string]any{"name": tt.name}); got != tt.want {
				t.Fatalf("%s sees %s=%q, want %q", tt.server, tt.name, got, tt.want)
			}
		})
	}
	if s := e.srv(b, "badvalue"); s.Config().Err == "" || s.Status().State != lifecycle.StateDisabled {
		t.Fatalf("a bad envPolicy must disable the server with a config error, got %q", s.Config().Err)
	}
	if d := b.detailText("proj"); !strings.Contains(d, "envPolicy:  minimal") {
		t.Fatalf("/mcp proj does not show the policy:\n%s", d)
	}
}
