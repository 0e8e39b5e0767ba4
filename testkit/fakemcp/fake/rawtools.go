package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// rawToolFlag collects -raw-tool NAME=SCHEMA flags: tools whose inputSchema is sent
// exactly as given (any JSON, valid schema or not), for tests of how clients cope with
// what real servers emit (pydantic's $defs and anyOf-with-null, string schemas, ...).
type rawToolFlag []rawToolSpec

type rawToolSpec struct {
	name   string
	schema json.RawMessage
}

func (f *rawToolFlag) String() string { return fmt.Sprint(len(*f)) }

func (f *rawToolFlag) Set(v string) error {
	name, schema, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("-raw-tool wants NAME=SCHEMA, got %q", v)
	}
	if !json.Valid([]byte(schema)) {
		return fmt.Errorf("-raw-tool %s: schema is not valid JSON", name)
	}
	*f = append(*f, rawToolSpec{name: name, schema: json.RawMessage(schema)})
	return nil
}

// rawTools are the -raw-tool tools. Each answers with its arguments as JSON text, so a
// test sees exactly what reached the server.
func rawTools(specs []rawToolSpec) []server.ServerTool {
	out := make([]server.ServerTool, 0, len(specs))
	for _, sp := range specs {
		tool := mcp.NewTool(sp.name, mcp.WithDescription("Raw-schema tool "+sp.name+"."))
		tool.InputSchema = mcp.ToolInputSchema{}
		tool.RawInputSchema = sp.schema
		out = append(out, server.ServerTool{Tool: tool, Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(req.GetArguments())
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(string(b)), nil
		}})
	}
	return out
}

// duplicateTool makes tools/list name the tool dup twice (the copy has another
// description), as a buggy server does.
func duplicateTool(hooks *server.Hooks, dup string) {
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		for _, t := range res.Tools {
			if t.Name == dup {
				t.Description = "Second definition of " + dup + "."
				res.Tools = append(res.Tools, t)
				return
			}
		}
	})
}

// describeFlag collects -describe NAME=TEXT flags: the description each named tool is
// listed with, for tests of what a server's text does on the way to a terminal or a model.
type describeFlag map[string]string

func (f *describeFlag) String() string { return fmt.Sprint(len(*f)) }

func (f *describeFlag) Set(v string) error {
	name, text, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("-describe wants NAME=TEXT, got %q", v)
	}
	if *f == nil {
		*f = describeFlag{}
	}
	(*f)[name] = text
	return nil
}

// listHints puts the caching hints "TTLMS,SCOPE" on every tools/list result, on either
// protocol, so the bridge's handling of them is testable over its pinned handshake.
func listHints(hooks *server.Hooks, spec string) error {
	ttl, scope, ok := strings.Cut(spec, ",")
	ms, err := strconv.ParseInt(ttl, 10, 64)
	if !ok || err != nil {
		return fmt.Errorf("-list-hints wants TTLMS,SCOPE, got %q", spec)
	}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		res.SetCacheHints(ms, mcp.CacheScope(scope))
	})
	return nil
}
