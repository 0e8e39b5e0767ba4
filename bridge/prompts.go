package bridge

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// maxPromptText bounds the text a fetched prompt hands to zot as the user's next prompt.
const maxPromptText = 256 << 10

// promptCommand serves `/mcp prompt <server> <name> [key=value …]` for the host: the
// prompt's text becomes the user's next prompt (command response action "prompt"). ok is
// false for any other /mcp command line.
func (b *Bridge) promptCommand(ctx context.Context, line string) (extension.CommandResponse, bool) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "prompt" {
		return extension.CommandResponse{}, false
	}
	words, err := splitQuoted(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "prompt")))
	if err != nil {
		return extension.CommandResponse{Action: "noop", Error: "/mcp prompt: " + err.Error()}, true
	}
	text, err := b.fetchPrompt(ctx, words)
	if err != nil {
		return extension.CommandResponse{Action: "noop", Error: err.Error()}, true
	}
	return extension.CommandResponse{Action: "prompt", Prompt: text}, true
}

// promptsText lists the cached prompts with their arguments (one server, or all).
func (b *Bridge) promptsText(args []string) (string, error) {
	c := b.extras()
	var names []string
	switch len(args) {
	case 0:
		for n, e := range c.servers {
			if _, ok := b.servers[n]; ok && b.runnable(n) && len(e.Prompts) > 0 {
				names = append(names, n)
			}
		}
		sort.Strings(names)
	case 1:
		srv, ok := b.servers[args[0]]
		if !ok {
			return "", fmt.Errorf("unknown server %q.%s Servers: %s", args[0], suggest(args[0], b.names), b.serverList())
		}
		if srv.pending.Load() {
			return "", srv.approvalErr()
		}
		names = args
	default:
		return "", fmt.Errorf("usage: /mcp prompts [server]")
	}
	var sb strings.Builder
	n := 0
	for _, server := range names {
		e := c.servers[server]
		if e == nil || len(e.Prompts) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "%s:\n", server)
		for _, p := range e.Prompts {
			n++
			fmt.Fprintf(&sb, "  %s", promptUsage(server, &p))
			if d := FirstLine(firstNonEmpty(p.Description, p.Title), purposeLen); d != "" {
				sb.WriteString("\n      " + d)
			}
			for _, a := range p.Arguments {
				req := ""
				if a.Required {
					req = " (required)"
				}
				fmt.Fprintf(&sb, "\n      %s%s", a.Name, req)
				if a.Description != "" {
					sb.WriteString(": " + FirstLine(a.Description, purposeLen))
				}
			}
			sb.WriteString("\n")
		}
	}
	if n == 0 {
		if len(args) == 1 {
			return fmt.Sprintf("MCP server %q offers no prompts (as of its last listing; /mcp refresh %s lists it again).", args[0], args[0]), nil
		}
		return "No MCP server offers prompts (as of their last listing; /mcp refresh lists them again).", nil
	}
	sb.WriteString("Use one: /mcp prompt <server> <name> [key=value …] (quote values with spaces: key=\"two words\")")
	return sb.String(), nil
}

// promptUsage is the command line that fetches a prompt, required arguments first.
func promptUsage(server string, p *cache.Prompt) string {
	parts := []string{"/mcp prompt", server, p.Name}
	for _, a := range p.Arguments {
		if a.Required {
			parts = append(parts, a.Name+"=<"+a.Name+">")
		}
	}
	for _, a := range p.Arguments {
		if !a.Required {
			parts = append(parts, "["+a.Name+"=…]")
		}
	}
	return strings.Join(parts, " ")
}

// fetchPrompt runs prompts/get for the words <server> <name> [key=value …] and returns
// the prompt's messages as one text.
func (b *Bridge) fetchPrompt(ctx context.Context, words []string) (string, error) {
	if len(words) < 2 {
		return "", fmt.Errorf("usage: /mcp prompt <server> <name> [key=value …]; /mcp prompts lists them")
	}
	server, name := words[0], words[1]
	srv, ok := b.servers[server]
	if !ok {
		return "", fmt.Errorf("unknown server %q.%s Servers: %s", server, suggest(server, b.names), b.serverList())
	}
	args := map[string]string{}
	for _, w := range words[2:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return "", fmt.Errorf("/mcp prompt: %q is not key=value", w)
		}
		args[k] = v
	}
	if e := b.extras().servers[server]; e != nil {
		var p *cache.Prompt
		var known []string
		for i := range e.Prompts {
			known = append(known, e.Prompts[i].Name)
			if e.Prompts[i].Name == name {
				p = &e.Prompts[i]
			}
		}
		if p == nil && len(known) > 0 {
			return "", fmt.Errorf("MCP server %q has no prompt %q.%s Prompts: %s", server, name, suggest(name, known), strings.Join(known, ", "))
		}
		if p != nil {
			if err := checkPromptArgs(server, p, args); err != nil {
				return "", err
			}
		}
	}
	res, err := srv.GetPrompt(ctx, name, args)
	if err != nil {
		return "", fmt.Errorf("%s", err.Error())
	}
	text := promptText(res)
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("MCP server %q returned an empty prompt %q", server, name)
	}
	return Truncate(text, maxPromptText), nil
}

// checkPromptArgs refuses unknown arguments and missing required ones with the usage line.
func checkPromptArgs(server string, p *cache.Prompt, args map[string]string) error {
	known := map[string]bool{}
	var names []string
	for _, a := range p.Arguments {
		known[a.Name] = true
		names = append(names, a.Name)
	}
	for k := range args {
		if !known[k] {
			return fmt.Errorf("prompt %s of %s has no argument %q.%s Usage: %s", p.Name, server, k, suggest(k, names), promptUsage(server, p))
		}
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return fmt.Errorf("prompt %s of %s needs %s. Usage: %s", p.Name, server, a.Name, promptUsage(server, p))
		}
	}
	return nil
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
			t = describeResource(c.Resource)
		case *mcp.EmbeddedResource:
			t = describeResource(c.Resource)
		case mcp.ResourceLink:
			t = describeLink(c)
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

// splitQuoted splits a command line on spaces; double or single quotes keep spaces inside
// a word (key="two words").
func splitQuoted(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
