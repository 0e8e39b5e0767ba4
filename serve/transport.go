package serve

import (
	"context"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves one client on in and out (its stdin and stdout) until in ends or
// ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return server.NewStdioServer(s.mcp).Listen(ctx, in, out)
}

// HTTPHandler is the streamable HTTP endpoint of the MCP server, both eras: a
// 2026-07-28 request stands alone (any instance can answer it), a 2025-11-25 client
// gets a session id no instance needs to know. It serves every path it is given and
// checks no Host: Guard in front decides both (mcp-go's own DNS-rebinding check is off,
// since it refuses a name --host allows when a proxy on this machine forwards to it).
func (s *Server) HTTPHandler() http.Handler {
	return server.NewStreamableHTTPServer(s.mcp, server.WithDisableLocalhostProtection(true))
}
