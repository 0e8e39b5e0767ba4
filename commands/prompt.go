package commands

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// promptCommand serves `/mcp prompt <server> <name> [key=value …]` for the host: the
// prompt's text becomes the user's next prompt (command response action "prompt"). ok is
// false for any other /mcp command line.
func (b host) promptCommand(ctx context.Context, line string) (extension.CommandResponse, bool) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "prompt" {
		return extension.CommandResponse{}, false
	}
	words, err := SplitQuoted(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "prompt")))
	if err != nil {
		return extension.CommandResponse{Action: "noop", Error: "/mcp prompt: " + err.Error()}, true
	}
	text, err := b.prompt(ctx, words)
	if err != nil {
		return extension.CommandResponse{Action: "noop", Error: err.Error()}, true
	}
	return extension.CommandResponse{Action: "prompt", Prompt: text}, true
}

// SplitQuoted splits a command line on spaces; double or single quotes keep spaces inside
// a word (key="two words").
func SplitQuoted(s string) ([]string, error) {
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

// purposeLen caps a prompt's or argument's description line, as the search tool's lines.
const purposeLen = 160

// maxPromptText bounds the text a fetched prompt hands to zot as the user's next prompt.
const maxPromptText = 256 << 10

// prompts lists the cached prompts with their arguments (one server, or all).
func (b host) prompts(args []string) (string, error) {
	var names []string
	switch len(args) {
	case 0:
		for _, n := range b.Names() {
			s, _ := b.Server(n)
			if s.Config().Usable() && !s.Pending() && len(b.Prompts(n)) > 0 {
				names = append(names, n)
			}
		}
	case 1:
		srv, ok := b.Server(args[0])
		if !ok {
			return "", fmt.Errorf("unknown server %q.%s Servers: %s", args[0], textdist.Suggest(args[0], b.Names()), b.serverList())
		}
		if srv.Pending() {
			return "", srv.ApprovalErr()
		}
		names = args
	default:
		return "", fmt.Errorf("usage: /mcp prompts [server]")
	}
	var sb strings.Builder
	n := 0
	for _, server := range names {
		prompts := b.Prompts(server)
		if len(prompts) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "%s:\n", server)
		for _, p := range prompts {
			n++
			fmt.Fprintf(&sb, "  %s", promptUsage(server, &p))
			if d := textcut.FirstLine(cmp.Or(strings.TrimSpace(p.Description), p.Title), purposeLen); d != "" {
				sb.WriteString("\n      " + d)
			}
			for _, a := range p.Arguments {
				req := ""
				if a.Required {
					req = " (required)"
				}
				fmt.Fprintf(&sb, "\n      %s%s", a.Name, req)
				if a.Description != "" {
					sb.WriteString(": " + textcut.FirstLine(a.Description, purposeLen))
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

// prompt runs prompts/get for the words <server> <name> [key=value …] and returns
// the prompt's messages as one text.
func (b host) prompt(ctx context.Context, words []string) (string, error) {
	if len(words) < 2 {
		return "", fmt.Errorf("usage: /mcp prompt <server> <name> [key=value …]; /mcp prompts lists them")
	}
	server, name := words[0], words[1]
	if _, ok := b.Server(server); !ok {
		return "", fmt.Errorf("unknown server %q.%s Servers: %s", server, textdist.Suggest(server, b.Names()), b.serverList())
	}
	args := map[string]string{}
	for _, w := range words[2:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return "", fmt.Errorf("/mcp prompt: %q is not key=value", w)
		}
		args[k] = v
	}
	if prompts := b.Prompts(server); prompts != nil {
		var p *cache.Prompt
		var known []string
		for i := range prompts {
			known = append(known, prompts[i].Name)
			if prompts[i].Name == name {
				p = &prompts[i]
			}
		}
		if p == nil && len(known) > 0 {
			return "", fmt.Errorf("MCP server %q has no prompt %q.%s Prompts: %s", server, name, textdist.Suggest(name, known), strings.Join(known, ", "))
		}
		if p != nil {
			if err := checkPromptArgs(server, p, args); err != nil {
				return "", err
			}
		}
	}
	text, err := b.GetPrompt(ctx, server, name, args)
	if err != nil {
		return "", fmt.Errorf("%s", err.Error())
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("MCP server %q returned an empty prompt %q", server, name)
	}
	return textcut.Truncate(text, maxPromptText), nil
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
			return fmt.Errorf("prompt %s of %s has no argument %q.%s Usage: %s", p.Name, server, k, textdist.Suggest(k, names), promptUsage(server, p))
		}
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return fmt.Errorf("prompt %s of %s needs %s. Usage: %s", p.Name, server, a.Name, promptUsage(server, p))
		}
	}
	return nil
}
