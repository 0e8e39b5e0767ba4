package lifecycle

import (
	"os"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/remote"
	"github.com/zot-mcp/mcp-bridge/session"
)

// wired is d with the connectors a host wires by the configured transport, as the
// bridge does: a process for a stdio server, remote's side of an HTTP one (sharing rd;
// nil: a Deps of d's log and clock).
func wired(d *Deps, rd *remote.Deps) *Deps {
	if rd == nil {
		rd = &remote.Deps{Log: d.Log, Clock: d.Clock, Cmd: zotSurface{}.Cmd, ClientName: "test"}
	}
	d.Connector = func(cfg *config.Server) Connector {
		if cfg.Transport != config.TransportStdio {
			return remote.NewServer(cfg, rd)
		}
		dir := cfg.Cwd
		if dir == "" {
			dir = d.ProjectDir
		}
		return &session.StdioConnector{Options: func() session.Stdio {
			return session.Stdio{Config: cfg, Dir: dir, Env: Env(cfg, os.Environ()), Log: d.Log, Clock: d.Clock, Redact: redact.New(cfg)}
		}}
	}
	return d
}
