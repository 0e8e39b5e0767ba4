package bridge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// Budgets for proxy-mode search answers: each result's compacted schema, and the whole answer.
const (
	schemaBudget = 1200
	answerBudget = 12000
)

const callToolDescription = "Call a tool of one of the user's MCP servers. First find the tool with mcp__search_tools, " +
	"which returns each tool's server, name and input schema; then call this with those names and arguments that follow the schema. " +
	"Returns the MCP tool's result. Arguments are checked against the schema before anything is sent."

var callSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"MCP server name, as given by mcp__search_tools."},"tool":{"type":"string","description":"MCP tool name on that server, as given by mcp__search_tools."},"arguments":{"type":"object","description":"Arguments for the tool, following its input schema."}},"required":["server","tool"],"additionalProperties":false}`)

// proxySearchAnswer lists tools with what the model needs to call them through
// mcp__call_tool: server, tool, purpose, a compact schema and an example; the tools of
// a whole task come in groups headed by the need they answer (see needHeading).
func (b *Bridge) proxySearchAnswer(asked string, shown []*catalog.Tool, needs []string) extension.ToolResult {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %s for %s. Call one with mcp__call_tool {\"server\": ..., \"tool\": ..., \"arguments\": {...}}:\n", words.Count(len(shown), "MCP tool"), asked)
	for i, e := range shown {
		var item strings.Builder
		t := e.CacheTool()
		if h := needHeading(needs, i); h != "" {
			item.WriteString("\n" + h)
		}
		fmt.Fprintf(&item, "\n%d. server=%q tool=%q", i+1, e.Server, t.Name)
		if h := catalog.Hints(t.Annotations); len(h) > 0 {
			item.WriteString(" [" + strings.Join(h, ", ") + "]")
		}
		if p := textcut.FirstLine(toolview.FirstNonEmpty(t.Description, t.Title), toolview.PurposeLen*2); p != "" {
			item.WriteString("\n   " + p)
		}
		schema := toolview.CompactSchema(t.InputSchema, schemaBudget)
		fmt.Fprintf(&item, "\n   input schema: %s", schema)
		fmt.Fprintf(&item, "\n   example: mcp__call_tool %s\n", toolview.ExampleCall(e.Server, &t))
		if sb.Len()+item.Len() > answerBudget {
			fmt.Fprintf(&sb, "\n(%d more not shown to keep this short; search with narrower words.)\n", len(shown)-i)
			break
		}
		sb.WriteString(item.String())
	}
	return toolresult.Text(sb.String())
}

type callArgs struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// resolveProxyCall validates an mcp__call_tool request without reaching any server: the
// server and tool must exist (closest names suggested) and the arguments must satisfy the
// tool's input schema.
func (b *Bridge) resolveProxyCall(raw json.RawMessage) (*catalog.Tool, json.RawMessage, *extension.ToolResult) {
	return b.resolveCall(raw, modelWording)
}

// callWording words resolveCall's answers for their reader: the model (through
// mcp__call_tool) or the user of the CLI's call.
type callWording struct {
	prefix string                     // what the message is about
	find   func(server string) string // how to find the right tool
}

var modelWording = callWording{prefix: CallToolName + ": ", find: func(string) string {
	return "Use " + SearchToolName + " to find the right tool."
}}

var cliWording = callWording{find: func(server string) string {
	return "List them: mcp-bridge tools --server " + server
}}

// resolveCall is resolveProxyCall worded for w.
func (b *Bridge) resolveCall(raw json.RawMessage, w callWording) (*catalog.Tool, json.RawMessage, *extension.ToolResult) {
	var a callArgs
	if err := decodeArgs(raw, &a); err != nil {
		r := toolresult.Error("%sinvalid arguments: %v. Expected {\"server\": \"...\", \"tool\": \"...\", \"arguments\": {...}}.", w.prefix, err)
		return nil, nil, &r
	}
	if a.Server == "" || a.Tool == "" {
		r := toolresult.Error("%sboth \"server\" and \"tool\" are required; find them with %s.", w.prefix, SearchToolName)
		return nil, nil, &r
	}
	if s, ok := b.servers[a.Server]; !ok {
		r := toolresult.Error("%sunknown MCP server %q.%s Configured servers: %s.", w.prefix, a.Server, textdist.Suggest(a.Server, b.names), commands.ServerList(b.names))
		return nil, nil, &r
	} else if s.Pending() {
		r := toolresult.Error("%s", s.ApprovalErr().Msg)
		return nil, nil, &r
	} else if !s.Config().Usable() {
		// Its tools are not known because it cannot start: say why, not "has no tool".
		r := toolresult.Error("%s%s", w.prefix, s.DisabledErr().Msg)
		return nil, nil, &r
	}
	if ok, why := b.servers[a.Server].Config().ToolAllowed(a.Tool); !ok {
		r := toolresult.Error("%stool %q of server %q is hidden by the user's MCP configuration (%s); it cannot be called. Tell the user if they need it.", w.prefix, a.Tool, a.Server, why)
		return nil, nil, &r
	}
	cat := b.catalog()
	e, ok := cat.LookupRef(a.Server, a.Tool)
	if !ok {
		if r, held := b.heldRef(a.Server, a.Tool); held {
			return nil, nil, &r
		}
		var tools []string
		for _, x := range cat.Entries {
			if x.Server == a.Server {
				tools = append(tools, x.Tool.Name)
			}
		}
		r := toolresult.Error("%sserver %q has no tool %q.%s %s", w.prefix, a.Server, a.Tool, textdist.Suggest(a.Tool, tools), w.find(a.Server))
		return nil, nil, &r
	}
	args, msg := b.validator.Fit(e, jsonscan.Args(a.Arguments))
	if msg != "" {
		r := toolresult.Error("%sarguments for %s/%s do not match its input schema: %s. Schema: %s", w.prefix, a.Server, a.Tool, msg, toolview.CompactSchema(e.CacheTool().InputSchema, schemaBudget))
		return nil, nil, &r
	}
	return e, args, nil
}
