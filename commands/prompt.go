package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/extension"
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
	text, err := b.Prompt(ctx, words)
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
