package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/internal/ctxval"
)

// Every request goes to its server under a context without the client request's values
// (ctxval): mcp-go keeps the request's transport and era there.

// Resources, templates and prompts are served under their server: a resource's URI
// becomes uriPrefix + server + "/" + its URI, a prompt's name server__name, so two
// servers' items never meet and a request finds its server by the name alone. With
// --prefix none they keep their own URIs and names and the server is found by lookup.

// uriPrefix starts every prefixed resource URI.
const uriPrefix = "mcp-bridge://"

// prefixURI is uri of server as a client sees it.
func (s *Server) prefixURI(serverName, uri string) string {
	if s.o.Unprefixed {
		return uri
	}
	return uriPrefix + catalog.Sanitize(serverName) + "/" + uri
}

// prefixName is a prompt's name as a client sees it.
func (s *Server) prefixName(serverName, name string) string {
	if s.o.Unprefixed {
		return name
	}
	return catalog.Sanitize(serverName) + "__" + name
}

// syncExtras sets the served resources, templates and prompts from the bridge's
// current snapshot, when it changed.
func (s *Server) syncExtras() error {
	ex := s.b.Extras()
	names := make([]string, 0, len(ex))
	for n := range ex {
		names = append(names, n)
	}
	sort.Strings(names)
	raw, _ := json.Marshal(struct {
		N []string
		E map[string]*cache.Server
	}{names, ex})
	key := string(raw)
	s.mu.Lock()
	same := key == s.extrasKey
	s.extrasKey = key
	s.mu.Unlock()
	if same {
		return nil
	}
	var (
		resources []server.ServerResource
		templates []server.ServerResourceTemplate
		prompts   []server.ServerPrompt
		seen      = map[string]string{}
		dups      []string
	)
	claim := func(kind, id, srv string) bool {
		k := kind + " " + id
		if other, ok := seen[k]; ok {
			dups = append(dups, fmt.Sprintf("%s %q (servers %s and %s)", kind, id, other, srv))
			return false
		}
		seen[k] = srv
		return true
	}
	for _, n := range names {
		e := ex[n]
		for _, r := range e.Resources {
			uri := s.prefixURI(n, r.URI)
			if !claim("resource", uri, n) {
				continue
			}
			res := mcp.Resource{URI: uri, Name: s.prefixName(n, r.Name), Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
			resources = append(resources, server.ServerResource{Resource: res, Handler: s.readHandler(n, r.URI)})
		}
		for _, t := range e.ResourceTemplates {
			tmpl := s.prefixURI(n, t.URITemplate)
			if !claim("resource template", tmpl, n) {
				continue
			}
			rt := mcp.NewResourceTemplate(tmpl, s.prefixName(n, t.Name), mcp.WithTemplateDescription(t.Description), mcp.WithTemplateMIMEType(t.MIMEType))
			rt.Title = t.Title
			templates = append(templates, server.ServerResourceTemplate{Template: rt, Handler: s.readTemplateHandler(n)})
		}
		for _, p := range e.Prompts {
			name := s.prefixName(n, p.Name)
			if !claim("prompt", name, n) {
				continue
			}
			mp := mcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				mp.Arguments = append(mp.Arguments, mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			prompts = append(prompts, server.ServerPrompt{Prompt: mp, Handler: s.promptHandler(n, p.Name)})
		}
	}
	s.mcp.SetResources(resources...)
	s.mcp.SetResourceTemplates(templates...)
	s.mcp.SetPrompts(prompts...)
	if len(dups) > 0 {
		sort.Strings(dups)
		if s.o.Unprefixed {
			return &CollisionError{Names: dups}
		}
	}
	return nil
}

// readHandler reads one listed resource of a server.
func (s *Server) readHandler(serverName, uri string) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return s.read(ctx, serverName, uri)
	}
}

// readTemplateHandler reads a URI of one of a server's templates.
func (s *Server) readTemplateHandler(serverName string) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		uri := req.Params.URI
		if !s.o.Unprefixed {
			uri = strings.TrimPrefix(uri, uriPrefix+catalog.Sanitize(serverName)+"/")
		}
		return s.read(ctx, serverName, uri)
	}
}

// read reads uri on the server and gives the contents the client's URIs.
func (s *Server) read(ctx context.Context, serverName, uri string) ([]mcp.ResourceContents, error) {
	res, err := s.b.ReadResource(ctxval.WithoutValues(ctx), serverName, uri)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceContents, 0, len(res.Contents))
	for _, c := range res.Contents {
		switch v := c.(type) {
		case mcp.TextResourceContents:
			v.URI = s.prefixURI(serverName, v.URI)
			out = append(out, v)
		case mcp.BlobResourceContents:
			v.URI = s.prefixURI(serverName, v.URI)
			out = append(out, v)
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// promptHandler gets one prompt of a server.
func (s *Server) promptHandler(serverName, name string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return s.b.GetPrompt(ctxval.WithoutValues(ctx), serverName, name, req.Params.Arguments)
	}
}

// completer forwards completion/complete to the server of the prompt or resource.
type completer struct{ s *Server }

func (c completer) CompletePromptArgument(ctx context.Context, promptName string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	srv, name, ok := c.s.findPrompt(promptName)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return c.s.complete(ctx, srv, mcp.PromptReference{Type: "ref/prompt", Name: name}, arg, cc)
}

func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	srv, orig, ok := c.s.findTemplate(uri)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return c.s.complete(ctx, srv, mcp.ResourceReference{Type: "ref/resource", URI: orig}, arg, cc)
}

// complete sends completion/complete to the server.
func (s *Server) complete(ctx context.Context, serverName string, ref any, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	params := map[string]any{"ref": ref, "argument": arg}
	if len(cc.Arguments) > 0 {
		params["context"] = cc
	}
	raw, err := s.b.Complete(ctxval.WithoutValues(ctx), serverName, params)
	if err != nil {
		return nil, err
	}
	var res mcp.CompleteResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("MCP server %q answered completion/complete with a result that cannot be read: %w", serverName, err)
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res.Completion, nil
}

// findPrompt is the server and own name of a prompt as the client names it.
func (s *Server) findPrompt(name string) (serverName, own string, ok bool) {
	for n, e := range s.b.Extras() {
		for _, p := range e.Prompts {
			if s.prefixName(n, p.Name) == name {
				return n, p.Name, true
			}
		}
	}
	return "", "", false
}

// findTemplate is the server and own URI template of a template as the client names it.
func (s *Server) findTemplate(uri string) (serverName, own string, ok bool) {
	for n, e := range s.b.Extras() {
		for _, t := range e.ResourceTemplates {
			if s.prefixURI(n, t.URITemplate) == uri {
				return n, t.URITemplate, true
			}
		}
		for _, r := range e.Resources {
			if s.prefixURI(n, r.URI) == uri {
				return n, r.URI, true
			}
		}
	}
	return "", "", false
}
