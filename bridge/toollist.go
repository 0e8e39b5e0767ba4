package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/session"
)

// SkippedTool is a listed tool the bridge cannot offer, and why.
type SkippedTool = session.SkippedTool

// listTools lists every tool of the server on sess and logs the tools it had to skip.
func (s *Server) listTools(ctx context.Context, sess session.Session) ([]mcp.Tool, error) {
	tools, skipped, err := sess.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	for _, sk := range skipped {
		s.d.log.Warn().Str("server", s.cfg.Name).Str("tool", sk.Name).Str("reason", sk.Reason).Msg("tool skipped")
	}
	s.mu.Lock()
	s.skipped = skipped
	s.mu.Unlock()
	return tools, nil
}

// SkippedTools lists the tools the last listing of the server could not offer, and why.
func (s *Server) SkippedTools() []SkippedTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SkippedTool(nil), s.skipped...)
}

// skippedText is the /mcp <server> line for skipped tools ("" when there are none).
func skippedText(skipped []SkippedTool) string {
	if len(skipped) == 0 {
		return ""
	}
	parts := make([]string, 0, len(skipped))
	for _, sk := range skipped {
		parts = append(parts, fmt.Sprintf("%s (%s)", sk.Name, sk.Reason))
	}
	return fmt.Sprintf("%d not offered: %s", len(skipped), Truncate(strings.Join(parts, "; "), 1000))
}
