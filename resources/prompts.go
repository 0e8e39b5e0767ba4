package resources

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// PromptText joins a prompt's messages; roles are named when the prompt is more than one
// user message.
func PromptText(res *mcp.GetPromptResult) string {
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
