// Command mcp-bridge plugs MCP servers into the zot coding agent. Started by zot (stdin is
// not a terminal, no arguments) it speaks the extension protocol; from a terminal it is a
// CLI for managing and checking servers without zot (package cli).
package main

import (
	"os"

	"github.com/zot-mcp/mcp-bridge/cli"
	"github.com/zot-mcp/mcp-bridge/internal/supervise"
)

func main() {
	supervise.MaybeRun()
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
