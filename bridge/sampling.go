package bridge

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The bridge does not offer sampling: zot's model is not an LLM endpoint servers may
// drive. mcp-go would answer a sampling request with a bare "no sampling handler"; the
// guard answers it with an error that says why and what to do, and tells the user which
// server asked. Installing a sampling handler instead would make mcp-go advertise the
// capability.

// guardRequests wraps a transport that carries server-to-client requests, so the
// bridge sees each request before mcp-go's handler does. The wrappers embed the concrete
// transport, which keeps every optional interface mcp-go looks for (HTTP connection,
// connection-lost handler, …). Transports without such requests pass unchanged.
func (s *Server) guardRequests(tr transport.Interface) transport.Interface {
	switch t := tr.(type) {
	case *transport.Stdio:
		return &guardedStdio{Stdio: t, s: s}
	case *transport.StreamableHTTP:
		return &guardedStreamable{StreamableHTTP: t, s: s}
	}
	return tr
}

type guardedStdio struct {
	*transport.Stdio
	s *Server
}

// SetRequestHandler installs h behind the guard.
func (g *guardedStdio) SetRequestHandler(h transport.RequestHandler) {
	g.Stdio.SetRequestHandler(g.s.guardHandler(h))
}

type guardedStreamable struct {
	*transport.StreamableHTTP
	s *Server
}

// SetRequestHandler installs h behind the guard.
func (g *guardedStreamable) SetRequestHandler(h transport.RequestHandler) {
	g.StreamableHTTP.SetRequestHandler(g.s.guardHandler(h))
}

// guardHandler refuses sampling requests and passes everything else to next.
func (s *Server) guardHandler(next transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodSamplingCreateMessage) {
			return next(ctx, req)
		}
		s.d.log.Warn().Str("server", s.cfg.Name).Msg("server asked for sampling, which the bridge does not offer; refused")
		if s.d.x != nil {
			s.d.x.samplingRefused(s.cfg.Name)
		}
		return nil, fmt.Errorf("sampling is not supported by this client (mcp-bridge for zot does not advertise it): %s cannot ask zot's model to generate text; use a tool or prompt that does not need sampling", s.cfg.Name)
	}
}

// samplingRefused tells the user that a server wanted sampling.
func (x *mcpx) samplingRefused(server string) {
	x.notes.SetGeneral("warn", fmt.Sprintf("MCP server %q asked zot's model to generate text (sampling); mcp-bridge does not offer that, so its request was refused and the server's operation may fail.", server))
}
