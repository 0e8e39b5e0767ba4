package commands

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/interact"
)

// answer serves /mcp answer|accept|decline|cancel <n> ….
func (b host) answer(ctx context.Context, sub string, args []string) (string, error) {
	r := b.Questions()
	usage := fmt.Sprintf("usage: /mcp %s <n>", sub)
	if sub == "answer" {
		usage = "usage: /mcp answer <n> field=value … (quote values with spaces: name=\"Ada Lovelace\")"
	}
	if len(args) == 0 {
		return "", fmt.Errorf("%s; open requests: %s", usage, r.OpenList())
	}
	n, err := strconv.Atoi(strings.TrimPrefix(args[0], "#"))
	oq := r.Get(n)
	if err != nil || oq == nil {
		return "", fmt.Errorf("no open MCP request %q (it may have been answered or expired); open requests: %s", args[0], r.OpenList())
	}
	q := oq.Q
	var res *mcp.ElicitationResult
	var done string
	switch sub {
	case "decline":
		res, done = interact.Result(mcp.ElicitationResponseActionDecline, nil), "Declined"
	case "cancel":
		res, done = interact.Result(mcp.ElicitationResponseActionCancel, nil), "Cancelled"
	case "accept", "answer":
		if q.Mode == mcp.ElicitationModeURL {
			if sub == "answer" {
				return "", fmt.Errorf("request %d asks you to open a URL, not to fill in fields: /mcp accept %d opens it", n, n)
			}
			if err := b.OpenURL(ctx, q.URL); err != nil {
				return "", fmt.Errorf("could not open a browser (%v); open %s yourself, then run /mcp accept %d again, or /mcp decline %d", err, q.URL, n, n)
			}
			res, done = interact.Result(mcp.ElicitationResponseActionAccept, nil), "Opened "+q.URL+" and told"
			break
		}
		values := map[string]string{}
		if sub == "answer" {
			if values, err = parseAssignments(strings.Join(args[1:], " "), q); err != nil {
				return "", fmt.Errorf("%v; %s", err, usage)
			}
		}
		content, err := q.Answer(values)
		if err != nil {
			return "", fmt.Errorf("request %d not answered: %v. Fix it and answer again", n, err)
		}
		res, done = interact.Result(mcp.ElicitationResponseActionAccept, content), "Sent your answer to"
	}
	if !oq.Reply(res) {
		return "", fmt.Errorf("request %d was already answered", n)
	}
	return fmt.Sprintf("%s MCP server %q (request %d).", done, q.Server, n), nil
}

// parseAssignments reads `field=value …`. A value runs until the next word that starts
// with a known field name and "=", so `name=Ada Lovelace` needs no quotes; quotes keep
// spaces inside a word (SplitQuoted, shared with /mcp prompt).
func parseAssignments(line string, q *interact.Elicitation) (map[string]string, error) {
	words, err := SplitQuoted(line)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	last := ""
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if ok {
			if _, known := q.Field(k); known || last == "" {
				out[k] = v
				last = k
				continue
			}
		}
		if last == "" {
			return nil, fmt.Errorf("%q is not field=value", w)
		}
		out[last] += " " + w
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no field=value given")
	}
	return out, nil
}
