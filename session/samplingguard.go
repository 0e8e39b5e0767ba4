package session

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

// guardSampling wraps a transport that carries server-to-client requests, so a sampling
// request of server is seen before mcp-go's handler sees it: refused is called (to log it
// and tell the user), and the request is answered with an error that says why. The
// wrappers embed the concrete transport, which keeps every optional interface mcp-go
// looks for (HTTP connection, connection-lost handler, …). Transports without such
// requests pass unchanged. NewClient installs it on a session without a sampler
// (Inputs.Sample): which transports carry such requests is this layer's to know.
func guardSampling(tr transport.Interface, server string, refused func()) transport.Interface {
	g := samplingGuard{server: server, refused: refused}
	switch t := tr.(type) {
	case *transport.Stdio:
		return &samplingStdio{Stdio: t, g: g}
	case *transport.StreamableHTTP:
		return &samplingStreamable{StreamableHTTP: t, g: g}
	}
	return tr
}

// samplingGuard is what a guarded transport knows of its server.
type samplingGuard struct {
	server  string
	refused func()
}

type samplingStdio struct {
	*transport.Stdio
	g samplingGuard
}

// SetRequestHandler installs h behind the guard.
func (g *samplingStdio) SetRequestHandler(h transport.RequestHandler) {
	g.Stdio.SetRequestHandler(g.g.handler(h))
}

type samplingStreamable struct {
	*transport.StreamableHTTP
	g samplingGuard
}

// SetRequestHandler installs h behind the guard.
func (g *samplingStreamable) SetRequestHandler(h transport.RequestHandler) {
	g.StreamableHTTP.SetRequestHandler(g.g.handler(h))
}

// handler refuses sampling requests and passes everything else to next.
func (g samplingGuard) handler(next transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcp.MethodSamplingCreateMessage) {
			return next(ctx, req)
		}
		if g.refused != nil {
			g.refused()
		}
		return nil, fmt.Errorf("sampling is not supported by this client (mcp-bridge for zot does not advertise it): %s cannot ask zot's model to generate text; use a tool or prompt that does not need sampling", g.server)
	}
}
