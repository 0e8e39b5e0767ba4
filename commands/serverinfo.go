package commands

import (
	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// Cache states of a server in ServerInfo.
const (
	CacheFresh     = "cached"     // tools listed for this exact definition
	CacheStale     = "stale"      // listed, but the definition changed since
	CacheMissing   = "not cached" // never listed
	CacheNotUsable = "-"          // disabled or broken: nothing to cache
)

// ServerInfo describes one configured server for listings (the CLI's list and get). Env
// and header values are shown as /mcp <server> shows them: a value that is exactly one
// ${VAR} reference as written, anything else as "<set>" naming the variables it uses.
type ServerInfo struct {
	Name      string `json:"name"`
	Scope     string `json:"scope"`
	File      string `json:"file"`
	Transport string `json:"transport"`
	// Protocol is the MCP revision the server speaks: pinned by "protocolVersion", or
	// the one it spoke last (Status.Protocol, remembered in the cache); "" when never
	// negotiated.
	Protocol       string            `json:"protocol,omitempty"`
	State          string            `json:"state"` // enabled, disabled, config error or needs approval
	Error          string            `json:"error,omitempty"`
	Cache          string            `json:"cache"`
	Tools          int               `json:"tools"` // tools in the cache
	Command        string            `json:"command,omitempty"`
	Args           []string          `json:"args,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Cwd            string            `json:"cwd,omitempty"`
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	OAuth          string            `json:"oauth,omitempty"`
	ConnectTimeout float64           `json:"connectTimeoutSeconds"`
	RequestTimeout float64           `json:"requestTimeoutSeconds"`
	IdleTimeout    float64           `json:"idleTimeoutSeconds"`
}

// ServerInfos describes every configured server, sorted by name. It reads the cache file
// once to tell fresh, stale and missing entries apart.
func ServerInfos(h Host) []ServerInfo {
	entries := cachedEntries(h)
	out := make([]ServerInfo, 0, len(h.Names()))
	for _, n := range h.Names() {
		s, _ := h.Server(n)
		out = append(out, serverInfo(s, entries))
	}
	return out
}

// cachedEntries is the cache entries as a session in h's project sees them
// (cache.File.View): another project's private listing of a server is none of its own.
func cachedEntries(h Host) map[string]*cache.Server {
	file, _ := cache.Read(h.CachePath())
	return file.View(trust.ProjectKey(h.ProjectDir()))
}

// Info describes one configured server.
func Info(h Host, name string) (ServerInfo, bool) {
	s, ok := h.Server(name)
	if !ok {
		return ServerInfo{}, false
	}
	return serverInfo(s, cachedEntries(h)), true
}

func serverInfo(s Server, entries map[string]*cache.Server) ServerInfo {
	c := s.Config()
	name := c.Name
	info := ServerInfo{Name: name, Scope: c.Scope, File: c.Source, Transport: string(c.Transport), State: "enabled",
		Error: c.Err, ConnectTimeout: c.ConnectTimeout.Seconds(), RequestTimeout: c.RequestTimeout.Seconds(),
		IdleTimeout: c.IdleTimeout.Seconds()}
	switch {
	case c.Err != "":
		info.State = "config error"
	case !c.Enabled:
		info.State = "disabled"
	case s.Pending():
		info.State = "needs approval"
	}
	info.Protocol = c.ProtocolVersion
	if info.Protocol == "" {
		info.Protocol = s.Status().Protocol
	}
	info.Cache = CacheNotUsable
	if c.Usable() {
		e := entries[name]
		switch {
		case e == nil:
			info.Cache = CacheMissing
		case e.Fingerprint != c.Fingerprint():
			info.Cache = CacheStale
		default:
			info.Cache = CacheFresh
			for _, t := range e.Tools {
				if ok, _ := c.ToolAllowed(t.Name); ok {
					info.Tools++
				}
			}
		}
	}
	if c.Transport == config.TransportStdio {
		info.Command, info.Args, info.Cwd = c.Raw.Command, c.Raw.Args, c.Raw.Cwd
		info.Env = redactedValues(c.Raw.Env)
	} else if c.Raw.URL != "" {
		info.URL = s.URL()
		info.Headers = redactedValues(c.Raw.Headers)
		info.OAuth = s.OAuthDetail()
	}
	return info
}

func redactedValues(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = DetailValue(v)
	}
	return out
}
