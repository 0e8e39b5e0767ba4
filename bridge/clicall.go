package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// SplitToolName splits a registered tool name (mcp__<server>__<tool>, as `tools` prints it)
// into the configured server and the MCP tool name. A name not in the catalog (a server
// never listed) is split by the server whose sanitised name it starts with; the tool part
// is then as written. ok is false when no configured server matches.
func (b *Bridge) SplitToolName(name string) (server, tool string, ok bool) {
	if e, found := b.catalog().Lookup(name); found {
		return e.Server, e.Tool.Name, true
	}
	rest, isMCP := strings.CutPrefix(name, "mcp__")
	if !isMCP {
		return "", "", false
	}
	best := ""
	for _, n := range b.names {
		p := catalog.Sanitize(n) + "__"
		if strings.HasPrefix(rest, p) && len(rest) > len(p) && len(n) > len(best) {
			best, tool = n, rest[len(p):]
		}
	}
	return best, tool, best != ""
}

// CallByName calls server/tool directly (the CLI's `call`), bypassing the host. tool may
// be the MCP name, the registered mcp__server__tool name, or the MCP name with '-' and
// '_' swapped. A usable server without a fresh cache entry (never listed, or its entry
// is stale) is started and listed first, and the cache updated, so a call works before
// any refresh; a server with a fresh entry is trusted, so a typo is answered with "did
// you mean" without starting anything.
func (b *Bridge) CallByName(ctx context.Context, server, tool string, args json.RawMessage) extension.ToolResult {
	// Invalid JSON would make the Marshal below fail and the call look like it named no
	// server or tool; say what is wrong instead.
	if len(args) == 0 {
		args = nil
	} else if !json.Valid(args) {
		var v any
		err := json.Unmarshal(args, &v)
		return toolresult.Error("arguments for %s/%s are not valid JSON (%v); pass a JSON object such as '{\"name\": \"value\"}'.", server, tool, err)
	}
	if s, ok := b.servers[server]; ok && s.Config().Usable() && !s.Pending() && slices.Contains(b.stale, server) {
		if _, found := b.cliToolName(server, tool); !found {
			rep := b.RefreshEach(ctx, []string{server}, nil)
			if len(rep.Failed) > 0 {
				return toolresult.Error("tool %q of MCP server %q is not cached, and listing the server's tools failed: %s", tool, server, rep.Failed[0])
			}
			b.stale = slices.DeleteFunc(b.stale, func(n string) bool { return n == server })
		}
	}
	if name, found := b.cliToolName(server, tool); found {
		tool = name
	}
	raw, _ := json.Marshal(callArgs{Server: server, Tool: tool, Arguments: args})
	e, a, bad := b.resolveCall(raw, cliWording)
	if bad != nil {
		return *bad
	}
	return b.callEntry(ctx, e, a)
}

// cliToolName finds the MCP name of the server's tool typed as tool (see CallByName).
func (b *Bridge) cliToolName(server, tool string) (string, bool) {
	cat := b.catalog()
	if e, ok := cat.LookupRef(server, tool); ok {
		return e.Tool.Name, true
	}
	if e, ok := cat.Lookup(tool); ok && e.Server == server {
		return e.Tool.Name, true
	}
	swapped := func(s string) string { return strings.ReplaceAll(s, "-", "_") }
	var match []string
	for _, e := range cat.Entries {
		if e.Server == server && swapped(e.Tool.Name) == swapped(tool) {
			match = append(match, e.Tool.Name)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return "", false
}
