package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/extras"
	"github.com/zot-mcp/mcp-bridge/toolresult"
)

// The bridge's side of resources and prompts (their catalog is extras.Catalog):
// registering and answering mcp__read_resource, adding resources to a search's answer,
// and the requests beyond tools/call a server answers once started.

// ReadResourceToolName is the one bridge tool that reads MCP resources.
const ReadResourceToolName = extras.ReadResourceToolName

// extrasHolder publishes the current resources and prompts (mcpx.extras).
type extrasHolder = extras.Holder

// registerReadResource registers mcp__read_resource: deferred where tools are (a search
// that finds a resource activates it), eagerly on hosts without deferred tools. It is
// registered whenever servers are configured: at startup the bridge reads only the
// startup file, which does not say which servers have resources.
func (b *Bridge) registerReadResource(r *extension.Registrations) error {
	if len(b.names) == 0 {
		return nil // no server, no resource
	}
	return r.AddTool(extension.Tool{Name: ReadResourceToolName, Description: extras.ReadResourceDescription,
		Schema: extras.ReadResourceSchema, Deferred: b.mode == ModeDeferred})
}

// extras returns the current resources and prompts. After a fast startup they come with
// the full catalog, decoded in the background right after ready; a /mcp prompts or a
// search that comes before it waits for it, as tool lookups do (catalog).
func (b *Bridge) extras() *extras.Catalog {
	<-b.cats.Ready()
	return b.x.extras.Load()
}

// searchResources returns the resources and templates that match q, best first.
func (b *Bridge) searchResources(q string, limit int) []extras.Doc {
	return b.extras().Search(q, limit, func(server string) bool {
		_, ok := b.servers[server]
		return ok && b.runnable(server)
	})
}

// searchWithResources is mcp__search_tools: the tool search, followed by the resources
// that match the same query and how to read them. A search that shows a resource
// activates mcp__read_resource on hosts with deferred tools.
func (b *Bridge) searchWithResources(raw json.RawMessage) extension.ToolResult {
	res := b.searchTool(raw)
	if res.IsError {
		return res
	}
	var a searchArgs
	if decodeArgs(raw, &a) != nil {
		return res
	}
	found := b.searchResources(strings.TrimSpace(a.Query), extras.SearchLimit)
	if len(found) == 0 {
		return res
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "MCP resources matching %q — read one with %s {\"server\": …, \"uri\": …}:\n", a.Query, ReadResourceToolName)
	for _, d := range found {
		sb.WriteString(extras.Line(d, purposeLen))
	}
	text := sb.String()
	if len(res.Content) == 1 && res.Content[0].Type == "text" && strings.HasPrefix(res.Content[0].Text, "No MCP") {
		res.Content[0].Text = text // no tool matched, or none is cached: the resources are the answer
	} else {
		res.Content = append(res.Content, extension.Content{Type: "text", Text: text})
	}
	if b.mode == ModeDeferred {
		res.ActivateTools = append(res.ActivateTools, ReadResourceToolName)
	}
	return res
}

type readResourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// readResourceTool answers mcp__read_resource.
func (b *Bridge) readResourceTool(ctx context.Context, raw json.RawMessage) extension.ToolResult {
	var a readResourceArgs
	if err := decodeArgs(raw, &a); err != nil {
		return ErrorResult("%s: invalid arguments: %v. Expected {\"server\": \"name\", \"uri\": \"scheme://…\"}.", ReadResourceToolName, err)
	}
	a.Server, a.URI = strings.TrimSpace(a.Server), strings.TrimSpace(a.URI)
	if a.Server == "" || a.URI == "" {
		return ErrorResult("%s: both server and uri are required; find them with %s.", ReadResourceToolName, SearchToolName)
	}
	srv, ok := b.servers[a.Server]
	if !ok {
		return ErrorResult("%s: unknown MCP server %q.%s Servers: %s", ReadResourceToolName, a.Server, suggest(a.Server, b.names), b.serverList())
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallBudget)
	defer cancel()
	res, err := srv.ReadResource(ctx, a.URI)
	if err != nil {
		var be *Error
		if errors.As(err, &be) {
			return ErrorResult("%s", be.Msg)
		}
		return ErrorResult("MCP server %q: %v", a.Server, err)
	}
	return toolresult.Convert(extras.AsResult(res), toolresult.DefaultBudget)
}

// ReadResource runs resources/read on the server (starting it if asleep).
func (s *Server) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	return extraRequest(ctx, s, "reading resource "+uri, func(cctx context.Context, c *conn) (*mcp.ReadResourceResult, error) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		return c.sess.ReadResource(cctx, req)
	})
}

// extraRequest runs one request beyond tools/call on the server's connection, starting
// the server if asleep and keeping it busy meanwhile, under requestTimeout; a failure is
// worded by extraErr with doing.
func extraRequest[T any](ctx context.Context, s *Server, doing string, do func(context.Context, *conn) (T, error)) (T, error) {
	var zero T
	c, err := s.acquire(ctx)
	if err != nil {
		return zero, err
	}
	defer s.release()
	cctx, cancel := withClockTimeout(ctx, s.d.clock, s.cfg.RequestTimeout)
	defer cancel()
	res, err := do(cctx, c)
	if err != nil {
		return zero, s.extraErr(ctx, cctx, err, doing)
	}
	return res, nil
}

// extraErr words the failure of a request beyond tools/call.
func (s *Server) extraErr(ctx, cctx context.Context, err error, doing string) error {
	switch {
	case ctx.Err() != nil:
		return s.ctxErr(ctx, doing)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return s.errorf(KindTimeout, err, "%s: no answer within requestTimeout (%s)", doing, s.cfg.RequestTimeout)
	}
	return s.errorf(KindCall, err, "%s failed: %v", doing, err)
}

// listExtras adds the server's resources, resource templates and prompts to a fresh
// cache entry (extras.List). A list that fails is logged and left empty: the tools still
// count.
func (s *Server) listExtras(ctx context.Context, e *cache.Entry) {
	c, err := s.acquire(ctx)
	if err != nil {
		return
	}
	defer s.release()
	extras.List(ctx, c.sess, e, func(what string, err error) {
		s.d.log.Warn().Str("server", s.cfg.Name).Err(err).Msg("listing " + what + " failed")
	})
}

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
	return extras.PromptText(res), nil
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
