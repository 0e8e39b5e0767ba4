package lifecycle

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/session"
)

// listTools lists every tool of the server on sess and logs the tools it had to skip.
func (s *Server) listTools(ctx context.Context, sess session.Session) ([]mcp.Tool, error) {
	tools, skipped, err := sess.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	for _, sk := range skipped {
		s.d.Log.Warn().Str("server", s.cfg.Name).Str("tool", sk.Name).Str("reason", sk.Reason).Msg("tool skipped")
	}
	var hints session.CacheHints
	if h, ok := sess.(session.HintsReporter); ok {
		hints = h.ToolListHints()
	}
	s.mu.Lock()
	s.skipped = skipped
	s.hints = hints
	s.mu.Unlock()
	return tools, nil
}

// CacheHints are the caching hints (ttlMs, cacheScope) of the server's last listing.
func (s *Server) CacheHints() session.CacheHints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hints
}

// SkippedTools lists the tools the last listing of the server could not offer, and why.
func (s *Server) SkippedTools() []session.SkippedTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]session.SkippedTool(nil), s.skipped...)
}
