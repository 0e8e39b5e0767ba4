package bridge

import (
	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/startup"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/toolview"
)

// Two things shape a tool's registration beyond its payload.
//
// Namespaces: a host that announces capabilities (the newest zot) files each tool under a
// namespace with a description and instructions, which its codemode (searchTools,
// describeNamespace, BM25 over each tool's text) and its request builder read. Every MCP
// server is one namespace: its name, a description made of the server's directory line
// (the search tool's) and its MCP instructions, and the user's "instructions" for it.
// Other hosts ignore the fields, so they are not sent to them.
//
// alwaysLoad: the tools a server entry names in "alwaysLoad" are registered visible from
// the first request, without a search round trip: not deferred in deferred mode, and in
// proxy mode (zot v0.1.62 advertises every registered tool eagerly) registered by their
// own names beside mcp__search_tools and mcp__call_tool. Every visible tool is sent with
// each model request, so together they get AlwaysLoadBudget bytes of registrations, taken
// in name order; the rest stay behind the search, and `mcp-bridge doctor` says which.
// Direct mode registers every tool visible anyway.

// AlwaysLoadBudget bounds the bytes of register_tool frames that alwaysLoad makes visible
// from the first request, about 8,000 tokens that every model request carries.
const AlwaysLoadBudget = 32 << 10

// AlwaysLoadUse is what alwaysLoad makes visible of a startup set.
type AlwaysLoadUse struct {
	Tools  int      `json:"tools"`          // tools registered visible
	Bytes  int      `json:"bytes"`          // bytes of their register_tool frames (an upper bound)
	Budget int      `json:"budget"`         // AlwaysLoadBudget
	Over   []string `json:"over,omitempty"` // tools alwaysLoad names that stay deferred: over the budget
}

// toolLook is what registering one startup set needs per tool beside its payload.
type toolLook struct {
	ns      map[string]extension.NamespaceFields // per server; nil for a host that reads no namespaces
	visible []bool                               // per tool of the set; nil when alwaysLoad applies to none
	use     AlwaysLoadUse
}

// isVisible reports whether the set's i-th tool is registered visible though the mode
// defers tools.
func (l *toolLook) isVisible(i int) bool { return l.visible != nil && l.visible[i] }

// lookFor works out the namespaces and the alwaysLoad marks of set for a host of
// generation gen in mode; dir is the set's server directory (the search tool's). Its work
// per tool is a map lookup, and only when some server has "alwaysLoad".
func (b *Bridge) lookFor(set *startup.Set, dir []toolview.DirEntry, gen extension.Generation, mode Mode) toolLook {
	var l toolLook
	if gen == extension.GenNew {
		l.ns = make(map[string]extension.NamespaceFields, len(dir))
		for _, d := range dir {
			ns := extension.Namespace{Name: d.Server, Description: toolview.NamespaceDescription(d, set.Instructions[d.Server])}
			if srv, ok := b.servers[d.Server]; ok {
				ns.Instructions = toolview.NamespaceInstructions(srv.Config().Instructions)
			}
			l.ns[d.Server] = extension.EncodeNamespace(ns)
		}
	}
	if mode == ModeDeferred || mode == ModeProxy {
		l.visible, l.use = b.alwaysLoaded(set, l.ns)
	}
	return l
}

// alwaysLoaded marks the tools of set that alwaysLoad makes visible, in name order while
// their frames (with their namespaces ns) fit AlwaysLoadBudget.
func (b *Bridge) alwaysLoaded(set *startup.Set, ns map[string]extension.NamespaceFields) ([]bool, AlwaysLoadUse) {
	use := AlwaysLoadUse{Budget: AlwaysLoadBudget}
	var cfgs map[string]*config.Server
	for _, name := range b.names {
		if c := b.servers[name].Config(); len(c.AlwaysLoad) > 0 && b.runnable(name) {
			if cfgs == nil {
				cfgs = map[string]*config.Server{}
			}
			cfgs[name] = c
		}
	}
	if cfgs == nil {
		return nil, use
	}
	visible := make([]bool, len(set.Tools))
	for i, t := range set.Tools {
		c := cfgs[t.Ref.Server]
		if c == nil || !c.AlwaysLoaded(t.Ref.Tool) {
			continue
		}
		n := extension.PayloadFrameSize(len(t.Name), set.Payload(i)) + len(ns[t.Ref.Server])
		if use.Bytes+n > AlwaysLoadBudget {
			use.Over = append(use.Over, t.Name)
			continue
		}
		visible[i] = true
		use.Tools++
		use.Bytes += n
	}
	if len(use.Over) > 0 {
		b.opts.Log.Warn().Int("visible", use.Tools).Strs("deferred", use.Over).Int("budget", AlwaysLoadBudget).
			Msg("alwaysLoad names more tools than fit its budget; the rest stay behind the search (see mcp-bridge doctor)")
	}
	return visible, use
}

// addVisible adds the register_tool frames of the tools of s that look makes visible, not
// deferred: proxy mode's alwaysLoad tools.
func (b *Bridge) addVisible(regs *extension.Registrations, s *startup.Set, look *toolLook) {
	if look.visible == nil {
		return
	}
	for i, t := range s.Tools {
		if !look.visible[i] {
			continue
		}
		p, interactive := b.toolPayload(t.Ref, s.Payload(i))
		if err := regs.AddPayloadIn(t.Name, p, look.ns[t.Ref.Server], false, interactive); err != nil {
			b.opts.Log.Warn().Err(err).Str("server", t.Ref.Server).Str("tool", t.Ref.Tool).Msg("tool not registered")
		}
	}
}

// AlwaysLoadUse is what alwaysLoad makes visible of the current catalog on the newest zot
// (deferred mode, with namespaces): what `mcp-bridge doctor` reports.
func (b *Bridge) AlwaysLoadUse() AlwaysLoadUse {
	file, _ := cache.Read(b.opts.CachePath)
	set := startup.FromCatalog(b.catalog(), file.View(b.projectKey))
	return b.lookFor(set, toolview.Directory(set.Refs()), extension.GenNew, ModeDeferred).use
}

// resultBudget is the budget of one result for the model: toolresult's default, with the
// whole text of a result it cuts saved under ZOT_HOME/mcp-results (package spill), where
// the model can read the rest with zot's own file tools.
func (b *Bridge) resultBudget() toolresult.Budget {
	budget := toolresult.DefaultBudget
	budget.Spill = b.spill
	return budget
}
