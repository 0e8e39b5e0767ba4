// Package resources is what servers offer to read beside their tools: the resources,
// resource templates and prompts of every server (converted into its cache entry from a
// listing, cleaned, searched, read as results).
package resources

import (
	"encoding/base64"
	"encoding/json"
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
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/search"
)

// ReadResourceToolName is the one bridge tool that reads MCP resources.
const ReadResourceToolName = "mcp__read_resource"

// SearchLimit is how many resources one search shows beside the tools.
const SearchLimit = 5

// ReadResourceDescription describes mcp__read_resource. It is kept short: in proxy mode
// it is part of every request.
const ReadResourceDescription = "Read a resource (document, file, record…) of an MCP server by its URI; " +
	"mcp__search_tools finds them. For a URI template, fill in its {placeholders}."

// ReadResourceSchema is mcp__read_resource's input schema.
var ReadResourceSchema = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"}},"required":["server","uri"],"additionalProperties":false}`)

// Catalog is an immutable snapshot of the resources, resource templates and prompts
// of every usable server with a fresh cache entry, with a resource search index built on
// first use.
type Catalog struct {
	Servers map[string]*cache.Server // only Resources, ResourceTemplates and Prompts are set

	once  sync.Once
	docs  []Doc
	index *search.Index
}

// Doc is one searchable resource or template.
type Doc struct {
	Server string
	res    *cache.Resource
	tmpl   *cache.ResourceTemplate
}

// Holder publishes the current Catalog.
type Holder struct{ p atomic.Pointer[Catalog] }

// Load is the current catalog (an empty one before the first is set).
func (h *Holder) Load() *Catalog {
	if c := h.p.Load(); c != nil {
		return c
	}
	return &Catalog{}
}

// SetFrom replaces the catalog by the extras of the named servers' cache entries.
func (h *Holder) SetFrom(entries map[string]*cache.Server, servers []string) {
	c := &Catalog{Servers: map[string]*cache.Server{}}
	for _, n := range servers {
		if e := entries[n]; e != nil {
			c.Servers[n] = extrasOf(e)
		}
	}
	h.p.Store(c)
}

// Merge replaces the extras of the servers in put.
func (h *Holder) Merge(put map[string]*cache.Server) {
	old := h.Load()
	c := &Catalog{Servers: map[string]*cache.Server{}}
	for n, e := range old.Servers {
		c.Servers[n] = e
	}
	for n, e := range put {
		c.Servers[n] = extrasOf(e)
	}
	h.p.Store(c)
}

// extrasOf is what the catalog keeps of a cache entry: its resources, templates and
// prompts with their server text sanitized (the cache keeps it as sent), so the model and
// the user read the same clean text. An item whose identifier (a URI, a URI template, a
// prompt's or its argument's name) carries a character Sanitize drops could be neither
// shown as it is nor asked for by a cleaned form, so it is left out.
func extrasOf(e *cache.Server) *cache.Server {
	out := &cache.Server{}
	for _, r := range e.Resources {
		if safetext.Clean(r.URI) {
			r.Name, r.Title, r.Description, r.MIMEType = clean4(r.Name, r.Title, r.Description, r.MIMEType)
			out.Resources = append(out.Resources, r)
		}
	}
	for _, t := range e.ResourceTemplates {
		if safetext.Clean(t.URITemplate) {
			t.Name, t.Title, t.Description, t.MIMEType = clean4(t.Name, t.Title, t.Description, t.MIMEType)
			out.ResourceTemplates = append(out.ResourceTemplates, t)
		}
	}
prompts:
	for _, p := range e.Prompts {
		if !safetext.Clean(p.Name) {
			continue
		}
		p.Title, p.Description = safetext.Sanitize(p.Title), safetext.Sanitize(p.Description)
		args := make([]cache.PromptArgument, 0, len(p.Arguments))
		for _, a := range p.Arguments {
			if !safetext.Clean(a.Name) {
				continue prompts
			}
			a.Description = safetext.Sanitize(a.Description)
			args = append(args, a)
		}
		if p.Arguments != nil {
			p.Arguments = args
		}
		out.Prompts = append(out.Prompts, p)
	}
	return out
}

// clean4 sanitizes four texts of one item.
func clean4(a, b, c, d string) (string, string, string, string) {
	return safetext.Sanitize(a), safetext.Sanitize(b), safetext.Sanitize(c), safetext.Sanitize(d)
}

// searchIndex builds the resource index on first use.
func (c *Catalog) searchIndex() ([]Doc, *search.Index) {
	c.once.Do(func() {
		names := slices.Sorted(maps.Keys(c.Servers))
		var sdocs []search.Doc
		for _, n := range names {
			e := c.Servers[n]
			for i := range e.Resources {
				r := &e.Resources[i]
				c.docs = append(c.docs, Doc{Server: n, res: r})
				sdocs = append(sdocs, search.Doc{ID: "resource " + n + " " + r.URI, Server: n, Tool: r.Name, Title: r.Title,
					Description: strings.Join([]string{r.Description, r.MIMEType, r.URI}, " ")})
			}
			for i := range e.ResourceTemplates {
				t := &e.ResourceTemplates[i]
				c.docs = append(c.docs, Doc{Server: n, tmpl: t})
				sdocs = append(sdocs, search.Doc{ID: "template " + n + " " + t.URITemplate, Server: n, Tool: t.Name, Title: t.Title,
					Description: strings.Join([]string{t.Description, t.MIMEType, t.URITemplate}, " ")})
			}
		}
		c.index = search.New(sdocs)
	})
	return c.docs, c.index
}

// Search returns the resources and templates that match q, best first, at most limit,
// of the servers usable says may be offered.
func (c *Catalog) Search(q string, limit int, usable func(server string) bool) []Doc {
	docs, ix := c.searchIndex()
	if len(docs) == 0 {
		return nil
	}
	var out []Doc
	for _, h := range ix.Search(q, limit+SearchLimit) {
		d := docs[h.Doc]
		// A server withdrawn from this session (untrusted) keeps its entry in the
		// snapshot but offers nothing.
		if !usable(d.Server) || len(out) == limit {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Line is one resource in a search answer: server, URI, name, type, purpose (its first
// line, at most purposeLen bytes).
func Line(d Doc, purposeLen int) string {
	var name, title, desc, mime, uri, kind, hint string
	if d.res != nil {
		name, title, desc, mime, uri, kind = d.res.Name, d.res.Title, d.res.Description, d.res.MIMEType, d.res.URI, "uri"
	} else {
		name, title, desc, mime, uri, kind = d.tmpl.Name, d.tmpl.Title, d.tmpl.Description, d.tmpl.MIMEType, d.tmpl.URITemplate, "uri_template"
		hint = " [template: fill in the {placeholders} to get the uri]"
	}
	line := fmt.Sprintf("- server=%q %s=%q name=%q", d.Server, kind, uri, name)
	if title != "" && title != name {
		line += fmt.Sprintf(" title=%q", title)
	}
	if mime != "" {
		line += " (" + mime + ")"
	}
	if p := textcut.FirstLine(desc, purposeLen); p != "" {
		line += ": " + p
	}
	return line + hint + "\n"
}

// AsResult puts resource contents in a tool result, so they are converted and
// bounded like tool results: images stay images, text comes with its URI, other binary
// contents are described.
func AsResult(res *mcp.ReadResourceResult) *mcp.CallToolResult {
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

// Fill puts what a server listed beside its tools (lifecycle.Server.ListOffers) into its
// fresh cache entry, sorted: the one conversion of resources, templates and prompts from
// mcp-go's types into the cache's.
func Fill(e *cache.Server, rs []mcp.Resource, ts []mcp.ResourceTemplate, ps []mcp.Prompt) {
	for _, r := range rs {
		e.Resources = append(e.Resources, cache.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	for _, t := range ts {
		raw := ""
		if t.URITemplate != nil && t.URITemplate.Template != nil {
			raw = t.URITemplate.Raw()
		}
		e.ResourceTemplates = append(e.ResourceTemplates, cache.ResourceTemplate{URITemplate: raw, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
	}
	for _, p := range ps {
		cp := cache.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			cp.Arguments = append(cp.Arguments, cache.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		e.Prompts = append(e.Prompts, cp)
	}
	sort.Slice(e.Resources, func(i, j int) bool { return e.Resources[i].URI < e.Resources[j].URI })
	sort.Slice(e.ResourceTemplates, func(i, j int) bool { return e.ResourceTemplates[i].URITemplate < e.ResourceTemplates[j].URITemplate })
	sort.Slice(e.Prompts, func(i, j int) bool { return e.Prompts[i].Name < e.Prompts[j].Name })
}
