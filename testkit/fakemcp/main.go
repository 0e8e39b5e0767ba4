// Command fakemcp is the configurable fake MCP server of mcp-bridge's tests as a process
// of its own (package fake, whose documentation lists its flags). Run it with -h for
// the full list.
package main

import (
	"os"

	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/fake"
)

func main() { os.Exit(fake.Main(os.Args[1:])) }
