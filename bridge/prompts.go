package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// getPromptText fetches a prompt of the named server and returns its messages as one text.
func (b *Bridge) getPromptText(ctx context.Context, server, name string, args map[string]string) (string, error) {
	srv, ok := b.servers[server]
	if !ok {
		return "", fmt.Errorf("unknown server %q.%s Servers: %s", server, suggest(server, b.names), b.serverList())
	}
	res, err := srv.GetPrompt(ctx, name, args)
	if err != nil {
		return "", err
	}
	return promptText(res), nil
}

// promptText joins a prompt's messages; roles are named when the prompt is more than one
// user message.
func promptText(res *mcp.GetPromptResult) string {
	label := len(res.Messages) > 1
	for _, m := range res.Messages {
		label = label || m.Role != mcp.RoleUser
	}
	parts := make([]string, 0, len(res.Messages))
	for _, m := range res.Messages {
		var t string
		switch c := m.Content.(type) {
		case mcp.TextContent:
			t = c.Text
		case *mcp.TextContent:
			t = c.Text
		case mcp.ImageContent:
			t = fmt.Sprintf("[image %s omitted]", c.MIMEType)
		case mcp.AudioContent:
			t = fmt.Sprintf("[audio %s omitted]", c.MIMEType)
		case mcp.EmbeddedResource:
			t = toolresult.DescribeResource(c.Resource)
		case *mcp.EmbeddedResource:
			t = toolresult.DescribeResource(c.Resource)
		case mcp.ResourceLink:
			t = toolresult.DescribeLink(c)
		default:
			t = fmt.Sprintf("%v", c)
		}
		if label {
			t = string(m.Role) + ": " + t
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n\n")
}

// GetPrompt runs prompts/get on the server (starting it if asleep).
func (s *Server) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return extraRequest(ctx, s, "getting prompt "+name, func(cctx context.Context, c *conn) (*mcp.GetPromptResult, error) {
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		return c.sess.GetPrompt(cctx, req)
	})
}
