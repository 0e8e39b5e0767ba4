package lifecycle

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
)

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
	cctx, cancel := clock.WithTimeout(ctx, s.d.Clock, s.cfg.RequestTimeout)
	defer cancel()
	sctx, release := settled(cctx, s.d.Clock)
	res, err := do(sctx, c)
	release()
	if err != nil {
		s.retireIfEnded(c, err)
		return zero, s.extraErr(ctx, cctx, err, doing)
	}
	return res, nil
}

// extraErr words the failure of a request beyond tools/call.
func (s *Server) extraErr(ctx, cctx context.Context, err error, doing string) error {
	var ended *session.EndedError
	var in *session.InputError
	switch {
	case errors.As(err, &in):
		return s.Errorf(session.KindCall, err, "%s: %v", doing, in)
	case ctx.Err() != nil:
		return s.ctxErr(ctx, doing)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return s.Errorf(session.KindTimeout, err, "%s: no answer within requestTimeout (%s)", doing, s.cfg.RequestTimeout)
	case errors.As(err, &ended) && ended.End.Cause != session.CauseClosed:
		return s.Errorf(session.KindEnded, err, "%s failed: %s; the next request opens a new connection", doing, lostText(ended.End))
	}
	return s.Errorf(session.KindCall, err, "%s failed: %v", doing, err)
}

// Offers is what a server lists beside its tools, as it listed them.
type Offers struct {
	Resources []mcp.Resource
	Templates []mcp.ResourceTemplate
	Prompts   []mcp.Prompt
}

// ListOffers lists the server's resources, resource templates and prompts, for what its
// capabilities announce (starting it if asleep). A list that fails is logged and left
// empty: the tools still count.
func (s *Server) ListOffers(ctx context.Context) Offers {
	var o Offers
	c, err := s.acquire(ctx)
	if err != nil {
		return o
	}
	defer s.release()
	warn := func(what string, err error) {
		if err != nil {
			s.d.Log.Warn().Str("server", s.cfg.Name).Err(err).Msg("listing " + what + " failed")
		}
	}
	// Each list is bounded by requestTimeout, as every other request: the refresh that
	// asks runs under a context that never ends.
	bounded := func(list func(context.Context) error) error {
		lctx, cancel := clock.WithTimeout(ctx, s.d.Clock, s.cfg.RequestTimeout)
		defer cancel()
		return list(lctx)
	}
	caps := c.sess.Info().Capabilities
	if caps.Resources != nil {
		warn("resources", bounded(func(ctx context.Context) (err error) { o.Resources, err = c.sess.ListResources(ctx); return err }))
		warn("resource templates", bounded(func(ctx context.Context) (err error) {
			o.Templates, err = c.sess.ListResourceTemplates(ctx)
			return err
		}))
	}
	if caps.Prompts != nil {
		warn("prompts", bounded(func(ctx context.Context) (err error) { o.Prompts, err = c.sess.ListPrompts(ctx); return err }))
	}
	return o
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

// Request sends one request of a method the typed ones do not cover (completion/complete)
// to the server (starting it if asleep) and returns its raw result; the caller checks
// what it may send. A JSON-RPC error of the server stays findable with errors.Is as
// mcp-go's sentinel.
func (s *Server) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return extraRequest(ctx, s, method, func(cctx context.Context, c *conn) (json.RawMessage, error) {
		resp, err := c.sess.Request(cctx, method, params)
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		return resp.Result, nil
	})
}
