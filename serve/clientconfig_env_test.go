package serve_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/serve"
)

// TestClientConfigEnv: a stdio config sets Env for serve in each JSON client's own
// field (the other clients are read as their clients read them in the root package's
// serve client tests); HTTP configs carry none; an entry that is not NAME=VALUE is refused.
func TestClientConfigEnv(t *testing.T) {
	env := []string{"ZOT_HOME=/home/u/zot state", "XDG_STATE_HOME=/home/u/.state"}
	tests := []struct{ client, top string }{
		{serve.ClientCursor, "mcpServers"},
		{serve.ClientVSCode, "servers"},
		{serve.ClientGemini, "mcpServers"},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			for _, url := range []string{"", testURL} {
				text, _, err := serve.ClientConfig(serve.ClientConfigInput{Client: tt.client, Command: testCmd, URL: url, Env: env})
				if err != nil {
					t.Fatal(err)
				}
				std, err := hujson.Standardize([]byte(text))
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				var doc map[string]map[string]struct {
					Env map[string]string `json:"env"`
				}
				if err := json.Unmarshal(std, &doc); err != nil {
					t.Fatal(err)
				}
				got := doc[tt.top][serve.DefaultClientServerName].Env
				if url == "" && (len(got) != 2 || got["ZOT_HOME"] != "/home/u/zot state" || got["XDG_STATE_HOME"] != "/home/u/.state") {
					t.Errorf("stdio env %v, want %v", got, env)
				}
				if url != "" && got != nil {
					t.Errorf("an HTTP config sets env %v", got)
				}
			}
		})
	}
	for _, bad := range []string{"NOEQUALS", "1BAD=x", "=x"} {
		_, _, err := serve.ClientConfig(serve.ClientConfigInput{Client: serve.ClientCodex, Command: testCmd, Env: []string{bad}})
		if err == nil || !strings.Contains(err.Error(), "NAME=VALUE") {
			t.Errorf("env entry %q: err %v, want it refused", bad, err)
		}
	}
}
