package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/schemacheck"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// Budgets for proxy-mode search answers: each result's compacted schema, and the whole answer.
const (
	schemaBudget = 1200
	answerBudget = 12000
	propDescLen  = 100
)

const callToolDescription = "Call a tool of one of the user's MCP servers. First find the tool with mcp__search_tools, " +
	"which returns each tool's server, name and input schema; then call this with those names and arguments that follow the schema. " +
	"Returns the MCP tool's result. Arguments are checked against the schema before anything is sent."

var callSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"MCP server name, as given by mcp__search_tools."},"tool":{"type":"string","description":"MCP tool name on that server, as given by mcp__search_tools."},"arguments":{"type":"object","description":"Arguments for the tool, following its input schema."}},"required":["server","tool"],"additionalProperties":false}`)

// proxySearchAnswer lists tools with what the model needs to call them through
// mcp__call_tool: server, tool, purpose, a compact schema and an example.
func (b *Bridge) proxySearchAnswer(q string, shown []*catalog.Entry) extension.ToolResult {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d MCP tool(s) for %q. Call one with mcp__call_tool {\"server\": ..., \"tool\": ..., \"arguments\": {...}}:\n", len(shown), q)
	for i, e := range shown {
		var item strings.Builder
		t := e.CacheTool()
		fmt.Fprintf(&item, "\n%d. server=%q tool=%q", i+1, e.Server, t.Name)
		if h := catalog.Hints(t.Annotations); len(h) > 0 {
			item.WriteString(" [" + strings.Join(h, ", ") + "]")
		}
		if p := FirstLine(firstNonEmpty(t.Description, t.Title), purposeLen*2); p != "" {
			item.WriteString("\n   " + p)
		}
		schema := CompactSchema(t.InputSchema, schemaBudget)
		fmt.Fprintf(&item, "\n   input schema: %s", schema)
		fmt.Fprintf(&item, "\n   example: mcp__call_tool %s\n", exampleCall(e.Server, &t))
		if sb.Len()+item.Len() > answerBudget {
			fmt.Fprintf(&sb, "\n(%d more not shown to keep this short; search with narrower words.)\n", len(shown)-i)
			break
		}
		sb.WriteString(item.String())
	}
	return TextResult(sb.String())
}

// CompactSchema shortens a JSON schema for display: property descriptions trimmed, long
// enums cut, noise keywords ($schema, examples, default titles) dropped. If the result is
// still over budget, nested detail is dropped, then only property names and types remain.
func CompactSchema(raw json.RawMessage, budget int) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return `{"type":"object"}`
	}
	for _, depth := range []int{4, 2, 1} {
		out, _ := json.Marshal(compactNode(v, depth))
		if len(out) <= budget {
			return string(out)
		}
	}
	out, _ := json.Marshal(compactNode(v, 0))
	return Truncate(string(out), budget)
}

func compactNode(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, val := range m {
		switch k {
		case "$schema", "examples", "title", "$id", "$comment", "additionalProperties":
			continue
		case "description":
			if s, ok := val.(string); ok && depth > 0 {
				out[k] = FirstLine(s, propDescLen)
			}
		case "enum":
			if arr, ok := val.([]any); ok && len(arr) > 12 {
				out[k] = append(arr[:12:12], "…")
			} else {
				out[k] = val
			}
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				continue
			}
			np := map[string]any{}
			for name, p := range props {
				if depth <= 0 {
					if pm, ok := p.(map[string]any); ok {
						np[name] = map[string]any{"type": pm["type"]}
						continue
					}
				}
				np[name] = compactNode(p, depth-1)
			}
			out[k] = np
		case "items", "anyOf", "oneOf", "allOf", "$defs", "definitions":
			if depth <= 0 {
				continue
			}
			out[k] = compactAny(val, depth-1)
		default:
			out[k] = val
		}
	}
	return out
}

func compactAny(v any, depth int) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = compactNode(x, depth)
		}
		return out
	case map[string]any:
		if _, isSchema := t["type"]; isSchema || depth < 0 {
			return compactNode(t, depth)
		}
		out := map[string]any{}
		for k, x := range t {
			out[k] = compactNode(x, depth)
		}
		return out
	}
	return v
}

// exampleCall builds a one-line example call with placeholder values for required params.
func exampleCall(server string, t *cache.Tool) string {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.InputSchema, &s)
	args := map[string]any{}
	for _, r := range s.Required {
		p := s.Properties[r]
		switch {
		case len(p.Enum) > 0:
			args[r] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			args[r] = 1
		case p.Type == "boolean":
			args[r] = true
		case p.Type == "array":
			args[r] = []any{}
		case p.Type == "object":
			args[r] = map[string]any{}
		default:
			args[r] = "<" + r + ">"
		}
	}
	out, _ := json.Marshal(map[string]any{"server": server, "tool": t.Name, "arguments": args})
	return string(out)
}

type callArgs struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// resolveProxyCall validates an mcp__call_tool request without reaching any server: the
// server and tool must exist (closest names suggested) and the arguments must satisfy the
// tool's input schema.
func (b *Bridge) resolveProxyCall(raw json.RawMessage) (*catalog.Entry, json.RawMessage, *extension.ToolResult) {
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
func (b *Bridge) resolveCall(raw json.RawMessage, w callWording) (*catalog.Entry, json.RawMessage, *extension.ToolResult) {
	var a callArgs
	if err := decodeArgs(raw, &a); err != nil {
		r := ErrorResult("%sinvalid arguments: %v. Expected {\"server\": \"...\", \"tool\": \"...\", \"arguments\": {...}}.", w.prefix, err)
		return nil, nil, &r
	}
	if a.Server == "" || a.Tool == "" {
		r := ErrorResult("%sboth \"server\" and \"tool\" are required; find them with %s.", w.prefix, SearchToolName)
		return nil, nil, &r
	}
	if s, ok := b.servers[a.Server]; !ok {
		r := ErrorResult("%sunknown MCP server %q.%s Configured servers: %s.", w.prefix, a.Server, suggest(a.Server, b.names), b.serverList())
		return nil, nil, &r
	} else if s.pending.Load() {
		r := ErrorResult("%s", s.approvalErr().Msg)
		return nil, nil, &r
	}
	if ok, why := b.servers[a.Server].cfg.ToolAllowed(a.Tool); !ok {
		r := ErrorResult("%stool %q of server %q is hidden by the user's MCP configuration (%s); it cannot be called. Tell the user if they need it.", w.prefix, a.Tool, a.Server, why)
		return nil, nil, &r
	}
	cat := b.catalog()
	e, ok := cat.LookupRef(a.Server, a.Tool)
	if !ok {
		var tools []string
		for _, x := range cat.Entries {
			if x.Server == a.Server {
				tools = append(tools, x.Tool.Name)
			}
		}
		r := ErrorResult("%sserver %q has no tool %q.%s %s", w.prefix, a.Server, a.Tool, suggest(a.Tool, tools), w.find(a.Server))
		return nil, nil, &r
	}
	args := a.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if msg := b.validator.check(e, args); msg != "" {
		r := ErrorResult("%sarguments for %s/%s do not match its input schema: %s. Schema: %s", w.prefix, a.Server, a.Tool, msg, CompactSchema(e.CacheTool().InputSchema, schemaBudget))
		return nil, nil, &r
	}
	return e, args, nil
}

// suggest names the closest candidates to name, if any are close.
func suggest(name string, candidates []string) string { return textdist.Suggest(name, candidates) }

// validator compiles input schemas on first use and checks arguments against them.
type validator struct {
	mu       sync.Mutex
	compiled map[catalog.ToolRef]compiledSchema
}

// compiledSchema is one tool's schema as last compiled, with the sum of the schema it
// was compiled from. A registered name always points at the same tool, but the tool's
// schema can change on a refresh: a call is checked against the schema the catalog holds
// now (a changed sum recompiles), and only the newest schema of a tool is kept.
type compiledSchema struct {
	sum uint64
	sch *jsonschema.Schema // nil: not checkable
}

func (v *validator) check(e *catalog.Entry, args json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments are not valid JSON: " + err.Error()
	}
	if _, ok := inst.(map[string]any); !ok {
		return "arguments must be a JSON object"
	}
	sch := v.schema(e)
	if sch == nil {
		return ""
	}
	if err := sch.Validate(inst); err != nil {
		return schemacheck.ErrorText(err)
	}
	return ""
}

func (v *validator) schema(e *catalog.Entry) *jsonschema.Schema {
	ref, sum := e.Ref(), e.InputSum()
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.compiled[ref]; ok && c.sum == sum {
		return c.sch
	}
	if v.compiled == nil {
		v.compiled = map[catalog.ToolRef]compiledSchema{}
	}
	sch := schemacheck.Compile(e.Name, e.CacheTool().InputSchema)
	v.compiled[ref] = compiledSchema{sum: sum, sch: sch}
	return sch
}
