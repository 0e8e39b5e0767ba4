package bridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/search"
)

// ReadResourceToolName is the one bridge tool that reads MCP resources.
const ReadResourceToolName = "mcp__read_resource"

// resourceSearchLimit is how many resources one search shows beside the tools.
const resourceSearchLimit = 5

// The definition is kept short: in proxy mode it is part of every request.
const readResourceDescription = "Read a resource (document, file, record…) of an MCP server by its URI; " +
	"mcp__search_tools finds them. For a URI template, fill in its {placeholders}."

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"}},"required":["server","uri"],"additionalProperties":false}`)

// registerReadResource registers mcp__read_resource: deferred where tools are (a search
// that finds a resource activates it), eagerly on hosts without deferred tools. It is
// registered whenever servers are configured: at startup the bridge reads only the
// startup file, which does not say which servers have resources.
func (b *Bridge) registerReadResource(r *extension.Registrations) error {
	if len(b.names) == 0 {
		return nil // no server, no resource
	}
	return r.AddTool(extension.Tool{Name: ReadResourceToolName, Description: readResourceDescription,
		Schema: readResourceSchema, Deferred: b.mode == ModeDeferred})
}

// extrasCatalog is an immutable snapshot of the resources, resource templates and prompts
// of every usable server with a fresh cache entry, with a resource search index built on
// first use.
type extrasCatalog struct {
	servers map[string]*cache.Entry // only Resources, ResourceTemplates and Prompts are set

	once  sync.Once
	docs  []resourceDoc
	index *search.Index
}

// resourceDoc is one searchable resource or template.
type resourceDoc struct {
	server string
	res    *cache.Resource
	tmpl   *cache.ResourceTemplate
}

// extrasHolder publishes the current extrasCatalog.
type extrasHolder struct{ p atomic.Pointer[extrasCatalog] }

func (h *extrasHolder) load() *extrasCatalog {
	if c := h.p.Load(); c != nil {
		return c
	}
	return &extrasCatalog{}
}

// extras returns the current resources and prompts. After a fast startup they come with
// the full catalog, decoded in the background right after ready; a /mcp prompts or a
// search that comes before it waits for it, as tool lookups do (catalog).
func (b *Bridge) extras() *extrasCatalog {
	<-b.catReady
	return b.x.extras.load()
}

// setFrom replaces the catalog by the extras of the named servers' cache entries.
func (h *extrasHolder) setFrom(entries map[string]*cache.Entry, servers []string) {
	c := &extrasCatalog{servers: map[string]*cache.Entry{}}
	for _, n := range servers {
		if e := entries[n]; e != nil {
			c.servers[n] = extrasOf(e)
		}
	}
	h.p.Store(c)
}

// merge replaces the extras of the servers in put.
func (h *extrasHolder) merge(put map[string]*cache.Entry) {
	old := h.load()
	c := &extrasCatalog{servers: map[string]*cache.Entry{}}
	for n, e := range old.servers {
		c.servers[n] = e
	}
	for n, e := range put {
		c.servers[n] = extrasOf(e)
	}
	h.p.Store(c)
}

func extrasOf(e *cache.Entry) *cache.Entry {
	return &cache.Entry{Resources: e.Resources, ResourceTemplates: e.ResourceTemplates, Prompts: e.Prompts}
}

// searchIndex builds the resource index on first use.
func (c *extrasCatalog) searchIndex() ([]resourceDoc, *search.Index) {
	c.once.Do(func() {
		names := slices.Sorted(maps.Keys(c.servers))
		var sdocs []search.Doc
		for _, n := range names {
			e := c.servers[n]
			for i := range e.Resources {
				r := &e.Resources[i]
				c.docs = append(c.docs, resourceDoc{server: n, res: r})
				sdocs = append(sdocs, search.Doc{ID: "resource " + n + " " + r.URI, Server: n, Tool: r.Name, Title: r.Title,
					Description: strings.Join([]string{r.Description, r.MIMEType, r.URI}, " ")})
			}
			for i := range e.ResourceTemplates {
				t := &e.ResourceTemplates[i]
				c.docs = append(c.docs, resourceDoc{server: n, tmpl: t})
				sdocs = append(sdocs, search.Doc{ID: "template " + n + " " + t.URITemplate, Server: n, Tool: t.Name, Title: t.Title,
					Description: strings.Join([]string{t.Description, t.MIMEType, t.URITemplate}, " ")})
			}
		}
		c.index = search.New(sdocs)
	})
	return c.docs, c.index
}

// searchResources returns the resources and templates that match q, best first.
func (b *Bridge) searchResources(q string, limit int) []resourceDoc {
	c := b.extras()
	docs, ix := c.searchIndex()
	if len(docs) == 0 {
		return nil
	}
	var out []resourceDoc
	for _, h := range ix.Search(q, limit+resourceSearchLimit) {
		d := docs[h.Doc]
		// A server withdrawn from this session (untrusted) keeps its entry in the
		// snapshot but offers nothing.
		if _, ok := b.servers[d.server]; !ok || !b.runnable(d.server) || len(out) == limit {
			continue
		}
		out = append(out, d)
	}
	return out
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
	found := b.searchResources(strings.TrimSpace(a.Query), resourceSearchLimit)
	if len(found) == 0 {
		return res
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "MCP resources matching %q — read one with %s {\"server\": …, \"uri\": …}:\n", a.Query, ReadResourceToolName)
	for _, d := range found {
		sb.WriteString(resourceLine(d))
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

// resourceLine is one resource in a search answer: server, URI, name, type, purpose.
func resourceLine(d resourceDoc) string {
	var name, title, desc, mime, uri, kind, hint string
	if d.res != nil {
		name, title, desc, mime, uri, kind = d.res.Name, d.res.Title, d.res.Description, d.res.MIMEType, d.res.URI, "uri"
	} else {
		name, title, desc, mime, uri, kind = d.tmpl.Name, d.tmpl.Title, d.tmpl.Description, d.tmpl.MIMEType, d.tmpl.URITemplate, "uri_template"
		hint = " [template: fill in the {placeholders} to get the uri]"
	}
	line := fmt.Sprintf("- server=%q %s=%q name=%q", d.server, kind, uri, name)
	if title != "" && title != name {
		line += fmt.Sprintf(" title=%q", title)
	}
	if mime != "" {
		line += " (" + mime + ")"
	}
	if p := FirstLine(desc, purposeLen); p != "" {
		line += ": " + p
	}
	return line + hint + "\n"
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
	return ConvertResult(resourceAsResult(res), DefaultBudget)
}

// resourceAsResult puts resource contents in a tool result, so they are converted and
// bounded like tool results: images stay images, text comes with its URI, other binary
// contents are described.
func resourceAsResult(res *mcp.ReadResourceResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{}
	for _, c := range res.Contents {
		if blob, ok := c.(mcp.BlobResourceContents); ok {
			if strings.HasPrefix(blob.MIMEType, "image/") {
				out.Content = append(out.Content, mcp.ImageContent{Type: "image", Data: blob.Blob, MIMEType: blob.MIMEType})
				continue
			}
			if text, ok := blobText(blob); ok {
				c = mcp.TextResourceContents{URI: blob.URI, MIMEType: blob.MIMEType, Text: text}
			}
		}
		out.Content = append(out.Content, mcp.EmbeddedResource{Type: "resource", Resource: c})
	}
	if len(out.Content) == 0 {
		out.Content = append(out.Content, mcp.TextContent{Type: "text", Text: "(the resource has no contents)"})
	}
	return out
}

// blobText decodes a binary content whose media type says it is text (text/*, JSON, XML)
// and that holds valid UTF-8, so the model can read it.
func blobText(b mcp.BlobResourceContents) (string, bool) {
	m := b.MIMEType
	if !strings.HasPrefix(m, "text/") && !strings.HasSuffix(m, "json") && !strings.HasSuffix(m, "xml") {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(b.Blob)
	if err != nil || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw), true
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
// cache entry, for what its capabilities announce. A list that fails is logged and left
// empty: the tools still count.
func (s *Server) listExtras(ctx context.Context, e *cache.Entry) {
	c, err := s.acquire(ctx)
	if err != nil {
		return
	}
	defer s.release()
	caps := c.sess.Info().Capabilities
	warn := func(what string, err error) {
		s.d.log.Warn().Str("server", s.cfg.Name).Err(err).Msg("listing " + what + " failed")
	}
	if caps.Resources != nil {
		rs, err := c.sess.ListResources(ctx)
		if err != nil {
			warn("resources", err)
		}
		for _, r := range rs {
			e.Resources = append(e.Resources, cache.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
		}
		ts, err := c.sess.ListResourceTemplates(ctx)
		if err != nil {
			warn("resource templates", err)
		}
		for _, t := range ts {
			raw := ""
			if t.URITemplate != nil && t.URITemplate.Template != nil {
				raw = t.URITemplate.Raw()
			}
			e.ResourceTemplates = append(e.ResourceTemplates, cache.ResourceTemplate{URITemplate: raw, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
		}
	}
	if caps.Prompts != nil {
		ps, err := c.sess.ListPrompts(ctx)
		if err != nil {
			warn("prompts", err)
		}
		for _, p := range ps {
			cp := cache.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				cp.Arguments = append(cp.Arguments, cache.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			e.Prompts = append(e.Prompts, cp)
		}
	}
	sort.Slice(e.Resources, func(i, j int) bool { return e.Resources[i].URI < e.Resources[j].URI })
	sort.Slice(e.ResourceTemplates, func(i, j int) bool { return e.ResourceTemplates[i].URITemplate < e.ResourceTemplates[j].URITemplate })
	sort.Slice(e.Prompts, func(i, j int) bool { return e.Prompts[i].Name < e.Prompts[j].Name })
}
