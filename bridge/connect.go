package bridge

import (
	"cmp"
	"context"
	"os"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/session"
)

// connector is the connector of cfg's sessions, chosen here, where the bridge wires the
// server, and nowhere else: the state machine knows no transport. Options.Connect, when
// set, opens every server (tests and benchmarks: in-process sessions).
func (b *Bridge) connector(cfg *config.Server) lifecycle.Connector {
	if b.opts.Connect != nil {
		return b.opts.Connect.For(cfg)
	}
	switch cfg.Transport {
	case config.TransportStdio:
		projectDir := b.projectDir
		return &session.StdioConnector{Options: func() session.Stdio {
			return session.Stdio{Config: cfg, Dir: cmp.Or(cfg.Cwd, projectDir), Env: lifecycle.Env(cfg, os.Environ()),
				Supervisor: b.opts.Supervisor, MaxReply: b.opts.MaxReplyBytes, Log: b.opts.Log, Clock: b.opts.Clock, Redact: redact.New(cfg)}
		}}
	case config.TransportStreamableHTTP, config.TransportSSE:
		if r, ok := b.remotes[cfg.Name]; ok {
			return r
		}
		// A typed nil *remote.Server would panic on Open.
		return failing(cfg, "no remote connection was wired for server \""+cfg.Name+"\" (a bug: please report it)")
	}
	return failing(cfg, "unknown transport \""+string(cfg.Transport)+"\"")
}

// failing is a connector whose every Open fails with msg.
func failing(cfg *config.Server, msg string) lifecycle.Connector {
	return lifecycle.ConnectFunc(func(context.Context, *config.Server, session.Handlers) (session.Session, error) {
		return nil, &session.Error{Kind: session.KindStart, Msg: msg}
	}).For(cfg)
}
