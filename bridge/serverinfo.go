package bridge

import (
	"encoding/json"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
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
	Name           string            `json:"name"`
	Scope          string            `json:"scope"`
	File           string            `json:"file"`
	Transport      string            `json:"transport"`
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
func (b *Bridge) ServerInfos() []ServerInfo {
	file, _ := cache.Read(b.opts.CachePath)
	out := make([]ServerInfo, 0, len(b.names))
	for _, n := range b.names {
		out = append(out, b.serverInfo(n, file))
	}
	return out
}

// ServerInfo describes one configured server.
func (b *Bridge) ServerInfo(name string) (ServerInfo, bool) {
	if _, ok := b.servers[name]; !ok {
		return ServerInfo{}, false
	}
	file, _ := cache.Read(b.opts.CachePath)
	return b.serverInfo(name, file), true
}

func (b *Bridge) serverInfo(name string, file *cache.File) ServerInfo {
	s := b.servers[name]
	c := s.cfg
	info := ServerInfo{Name: name, Scope: c.Scope, File: c.Source, Transport: string(c.Transport), State: "enabled",
		Error: c.Err, ConnectTimeout: c.ConnectTimeout.Seconds(), RequestTimeout: c.RequestTimeout.Seconds(),
		IdleTimeout: c.IdleTimeout.Seconds()}
	switch {
	case c.Err != "":
		info.State = "config error"
	case !c.Enabled:
		info.State = "disabled"
	case s.pending.Load():
		info.State = "needs approval"
	}
	info.Cache = CacheNotUsable
	if c.Usable() {
		e := file.Servers[name]
		switch {
		case e == nil:
			info.Cache = CacheMissing
		case e.Fingerprint != c.Fingerprint():
			info.Cache = CacheStale
		default:
			info.Cache = CacheFresh
			info.Tools = len(filterTools(e.Tools, c))
		}
	}
	if c.Transport == config.TransportStdio {
		info.Command, info.Args, info.Cwd = c.Raw.Command, c.Raw.Args, c.Raw.Cwd
		info.Env = redactedValues(c.Raw.Env)
	} else if c.Raw.URL != "" {
		info.URL = displayURL(c)
		info.Headers = redactedValues(c.Raw.Headers)
		info.OAuth = s.oauthDetail(s.Status())
	}
	return info
}

func redactedValues(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = detailValue(v)
	}
	return out
}

// DetailText is /mcp <server> for the named server (the CLI's get).
func (b *Bridge) DetailText(name string) (string, bool) {
	if _, ok := b.servers[name]; !ok {
		return "", false
	}
	return b.detailText(name), true
}

// ModeOn is the exposure mode the configuration gives on a host of generation gen, and
// why (doctor reports it for each kind of zot).
func (b *Bridge) ModeOn(gen extension.Generation) (Mode, string) { return chooseMode(b.cfg, gen) }

// SearchHit is one result of SearchTools.
type SearchHit struct {
	Name        string          `json:"name"` // registered name, mcp__<server>__<tool>
	Server      string          `json:"server"`
	Tool        string          `json:"tool"` // the MCP name
	Description string          `json:"description"`
	Hints       []string        `json:"hints,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// SearchTools ranks the cached tools for query as mcp__search_tools does, for the CLI's
// search --json. The second result is the text that explains an empty answer (no tools
// cached, being fetched...), "" when tools are known.
func (b *Bridge) SearchTools(query string, limit int) ([]SearchHit, string) {
	cat := b.catalog()
	if len(cat.entries) == 0 {
		if len(b.names) == 0 {
			return nil, "no MCP servers are configured"
		}
		return nil, b.noToolsText()
	}
	var out []SearchHit
	for _, h := range cat.searchIndex().Search(strings.TrimSpace(query), limit) {
		e := &cat.entries[h.Doc]
		t := e.tool()
		out = append(out, SearchHit{Name: e.Name, Server: e.Server, Tool: t.Name,
			Description: FirstLine(firstNonEmpty(t.Description, t.Title), purposeLen*2),
			Hints:       Hints(t.Annotations), InputSchema: t.InputSchema})
	}
	return out, ""
}

// Suggest is " Did you mean ...?" for the candidates close to name, or "".
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }
