package commands

import "testing"

func TestSurfaceWording(t *testing.T) {
	for _, tc := range []struct {
		sf        Surface
		sub       string
		args      []string
		want      string
		reload    string
		reloadCmd string
	}{
		{SurfaceZot, "login", []string{"gh"}, "/mcp login gh", "run /reload-ext", "/reload-ext"},
		{SurfaceZot, "start", []string{"gh"}, "/mcp start gh", "run /reload-ext", "/reload-ext"},
		{SurfaceZot, "", []string{"gh"}, "/mcp gh", "run /reload-ext", "/reload-ext"},
		{SurfaceCLI, "login", []string{"gh"}, "mcp-bridge login gh", "restart zot or run /reload-ext inside zot", "a zot restart (or /reload-ext inside zot)"},
		{SurfaceCLI, "logout", []string{"gh"}, "mcp-bridge logout gh", "", ""},
		{SurfaceCLI, "start", []string{"gh"}, "mcp-bridge refresh --server gh", "", ""},
		{SurfaceCLI, "restart", []string{"gh"}, "mcp-bridge refresh --server gh", "", ""},
		{SurfaceCLI, "refresh", nil, "mcp-bridge refresh", "", ""},
		{SurfaceCLI, "setup", nil, "mcp-bridge setup", "", ""},
		{SurfaceCLI, "", []string{"gh"}, "mcp-bridge get gh", "", ""},
	} {
		if got := tc.sf.Cmd(tc.sub, tc.args...); got != tc.want {
			t.Errorf("Cmd(%q, %v) on surface %d = %q, want %q", tc.sub, tc.args, tc.sf, got, tc.want)
		}
		if tc.reload != "" && tc.sf.Reload() != tc.reload {
			t.Errorf("Reload on surface %d = %q", tc.sf, tc.sf.Reload())
		}
		if tc.reloadCmd != "" && tc.sf.ReloadCmd() != tc.reloadCmd {
			t.Errorf("ReloadCmd on surface %d = %q", tc.sf, tc.sf.ReloadCmd())
		}
	}
}
