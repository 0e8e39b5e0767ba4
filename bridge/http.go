package bridge

import (
	"context"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
)

// connectHTTP opens a streamable-HTTP or SSE connection with the configured headers on every
// request. A url-only entry (TransportGuessed) tries streamable HTTP first and falls back to SSE.
func (s *Server) connectHTTP(ctx context.Context) (*conn, []mcp.Tool, error) {
	kinds := []config.Transport{s.cfg.Transport}
	if s.cfg.TransportGuessed {
		kinds = []config.Transport{config.TransportStreamableHTTP, config.TransportSSE}
	}
	var firstErr error
	for _, kind := range kinds {
		c, tools, err := s.connectHTTPKind(ctx, kind)
		if err == nil {
			return c, tools, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, nil, s.errorf(KindStart, firstErr, "failed to connect to %s: %s", redactURL(s.cfg), describeStartErr(ctx, firstErr, s.cfg.ConnectTimeout))
}

func (s *Server) connectHTTPKind(ctx context.Context, kind config.Transport) (*conn, []mcp.Tool, error) {
	var cl *client.Client
	var err error
	switch kind {
	case config.TransportSSE:
		cl, err = client.NewSSEMCPClient(s.cfg.URL, transport.WithHeaders(s.cfg.Headers))
	default:
		cl, err = client.NewStreamableHttpClient(s.cfg.URL, transport.WithHTTPHeaders(s.cfg.Headers))
	}
	if err != nil {
		return nil, nil, err
	}
	c := &conn{client: cl, info: connInfo{transport: kind}}
	tools, err := s.handshake(ctx, c)
	if err != nil {
		_ = cl.Close()
		return nil, nil, err
	}
	return c, tools, nil
}

// redactURL shows the URL as written in the config (with ${VAR} references, not values).
func redactURL(cfg *config.Server) string {
	return cfg.Raw.URL
}
