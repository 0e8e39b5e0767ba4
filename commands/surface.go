package commands

import "strings"

// Surface is where the user reads the bridge's messages, so that a hint names a command
// the user can actually type there.
type Surface int

// Surfaces.
const (
	// SurfaceZot: inside zot, where the user types /mcp and /reload-ext.
	SurfaceZot Surface = iota
	// SurfaceCLI: the mcp-bridge command line, outside zot.
	SurfaceCLI
	// SurfaceServe: mcp-bridge serve, another client's server: its user types the
	// CLI's commands in a terminal, and a config change needs serve restarted.
	SurfaceServe
)

// Terminal reports whether the user types mcp-bridge commands (the CLI, serve) rather
// than /mcp.
func (sf Surface) Terminal() bool { return sf == SurfaceCLI || sf == SurfaceServe }

// cliEquivalent maps a /mcp subcommand to the CLI command that does the same job. A CLI
// process starts servers afresh, so start and restart become a refresh (which starts the
// server and lists its tools).
var cliEquivalent = map[string]string{
	"start":   "refresh --server",
	"restart": "refresh --server",
	"refresh": "refresh --server",
	"login":   "login",
	"logout":  "logout",
	"trust":   "trust",
	"untrust": "untrust",
	"setup":   "setup",
	"":        "get",
}

// Cmd words a /mcp command for the surface: Cmd("login", "x") is "/mcp login x" inside
// zot and "mcp-bridge login x" on the CLI. An empty sub names the details command.
func (sf Surface) Cmd(sub string, args ...string) string {
	if sf.Terminal() {
		c, ok := cliEquivalent[sub]
		if !ok {
			c = sub
		}
		if len(args) == 0 {
			c = strings.TrimSuffix(c, " --server")
		}
		return strings.Join(append([]string{"mcp-bridge", c}, args...), " ")
	}
	parts := []string{"/mcp"}
	if sub != "" {
		parts = append(parts, sub)
	}
	return strings.Join(append(parts, args...), " ")
}

// StderrCmd is the command that shows a server's last stderr lines: its details inside zot,
// where the bridge keeps them; on the CLI, whose every run starts afresh, a refresh of the
// server, which starts it and prints its failure with them.
func (sf Surface) StderrCmd(server string) string {
	if sf.Terminal() {
		return sf.Cmd("refresh", server)
	}
	return sf.Cmd("", server)
}

// ToolsChanged is what to do once a server's cached tools changed, as a clause: a reload,
// which registers them with the host, or nothing in proxy mode, where the search tool and
// mcp__call_tool read the catalog that the refresh has already changed.
func (sf Surface) ToolsChanged(proxy bool) string {
	if proxy {
		return "they can be searched and called now, no reload needed"
	}
	return sf.Reload() + " to load them"
}

// Reload words, as a verb phrase, how new tools or config get loaded into zot: "run
// /reload-ext" inside zot, "restart zot or run /reload-ext inside zot" on the CLI.
func (sf Surface) Reload() string {
	if sf == SurfaceServe {
		return "restart mcp-bridge serve"
	}
	if sf == SurfaceCLI {
		return "restart zot or run /reload-ext inside zot"
	}
	return "run /reload-ext"
}

// ReloadCmd names the reload as a noun ("then /reload-ext").
func (sf Surface) ReloadCmd() string {
	if sf == SurfaceServe {
		return "a restart of mcp-bridge serve"
	}
	if sf == SurfaceCLI {
		return "a zot restart (or /reload-ext inside zot)"
	}
	return "/reload-ext"
}

// Status names the overview command (/mcp or mcp-bridge list).
func (sf Surface) Status() string {
	if sf.Terminal() {
		return "mcp-bridge list"
	}
	return "/mcp"
}

// Logs names where the bridge's log is read.
func (sf Surface) Logs() string {
	if sf.Terminal() {
		return "run the command again with MCP_BRIDGE_LOG=debug"
	}
	return "zot ext logs mcp-bridge -f"
}
