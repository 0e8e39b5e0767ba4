package bridge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// The tools of an approved project server, and of a global server with "pinTools": true,
// are pinned (package trust): a tool that differs from its pin, or has none, is held back
// from everything that offers tools — the startup set, the catalog (so search, routing and
// the proxy), and a call answers how the user can approve it. The pins come from the
// approval store; the tools compared with them are the cached ones at startup and each
// listing afterwards, and the cache keeps every listed tool, so approving the new set
// needs no listing.

// pinBook is what the bridge knows of pinned tools, per server whose tools are pinned.
// Its maps are replaced, never changed in place, so a pins map handed out stays valid.
type pinBook struct {
	mu      sync.Mutex
	servers map[string]*pinnedServer
}

// pinnedServer is one server whose tools are pinned.
type pinnedServer struct {
	target trust.Target
	pins   map[string]string // nil: none pinned yet
	// baseline are the cached tools seen while none were pinned (an approval stored before
	// tools were pinned): they ran under that approval, so they are pinned after ready,
	// before any listing could pin something else.
	baseline []cache.Tool
	changes  trust.Changes         // the tools last seen against pins
	seen     map[string]cache.Tool // the added and changed tools as last seen
}

// reset forgets every pin (a config load starts over).
func (p *pinBook) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.servers = map[string]*pinnedServer{}
}

// set records that server's tools are pinned for target, with pins (nil: none yet).
func (p *pinBook) set(server string, target trust.Target, pins map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.servers == nil {
		p.servers = map[string]*pinnedServer{}
	}
	ps := p.servers[server]
	if ps == nil || ps.target != target {
		ps = &pinnedServer{target: target}
		p.servers[server] = ps
	}
	// What was seen is compared again at the next catalog change or listing.
	ps.pins, ps.changes, ps.seen = pins, trust.Changes{}, nil
	if pins != nil {
		ps.baseline = nil
	}
}

// drop forgets server's pins (its approval was withdrawn).
func (p *pinBook) drop(server string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.servers, server)
}

// target is server's pin target, ok false when its tools are not pinned.
func (p *pinBook) target(server string) (trust.Target, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.servers[server]
	if ps == nil {
		return trust.Target{}, false
	}
	return ps.target, true
}

// pinsOf is server's pins: nil when its tools are not pinned or none are pinned yet.
func (p *pinBook) pinsOf(server string) map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ps := p.servers[server]; ps != nil {
		return ps.pins
	}
	return nil
}

// observe compares the tools server lists (or has cached) with its pins, remembers the
// outcome for notes, /mcp <server> and calls, and returns the names held back (nil when
// none are). A pinned server with none pinned yet keeps the tools as its baseline.
func (p *pinBook) observe(server string, tools []cache.Tool, cached bool) map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.servers[server]
	if ps == nil {
		return nil
	}
	if ps.pins == nil {
		if cached {
			ps.baseline = tools
		}
		ps.changes, ps.seen = trust.Changes{}, nil
		return nil
	}
	ps.changes = trust.Compare(ps.pins, tools)
	held := ps.changes.Held()
	ps.seen = make(map[string]cache.Tool, len(held))
	out := make(map[string]bool, len(held))
	for _, n := range held {
		out[n] = true
	}
	for _, t := range tools {
		if out[t.Name] {
			if _, dup := ps.seen[t.Name]; !dup {
				ps.seen[t.Name] = t
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// change is how server's tools last seen differ from its pins (ok false when its tools are
// not pinned, or equal the pins).
func (p *pinBook) change(server string) (c trust.Changes, seen map[string]cache.Tool, pins map[string]string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.servers[server]
	if ps == nil || ps.pins == nil || ps.changes.Empty() {
		return trust.Changes{}, nil, nil, false
	}
	return ps.changes, ps.seen, ps.pins, true
}

// unpinned lists the pinned servers with none pinned yet, with their baseline (nil when
// none was cached), sorted by name.
func (p *pinBook) unpinned() (names []string, baselines map[string][]cache.Tool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	baselines = map[string][]cache.Tool{}
	for n, ps := range p.servers {
		if ps.pins == nil {
			names = append(names, n)
			baselines[n] = ps.baseline
		}
	}
	slices.Sort(names)
	return names, baselines
}

// pinTarget is the target a server's tools are pinned for: its approval in this project,
// or the global server by name.
func (b *Bridge) pinTarget(c *config.Server) trust.Target {
	if needsApproval(c) {
		return trust.Target{Project: b.projectDir, Server: c.Name, Fingerprint: trust.Fingerprint(c)}
	}
	return trust.Target{Global: true, Server: c.Name, Fingerprint: trust.Fingerprint(c)}
}

// offeredTools is what of a server's cached or listed tools the catalog offers: those its
// config does not hide and its pins do not hold back.
func (b *Bridge) offeredTools(name string, tools []cache.Tool, cached bool) []cache.Tool {
	out := filterTools(tools, b.servers[name].Config())
	if held := b.pins.observe(name, tools, cached); held != nil {
		out = slices.DeleteFunc(out, func(t cache.Tool) bool { return held[t.Name] })
	}
	return out
}

// pinFirst pins the tools of every pinned server with none pinned yet whose tools are
// known: the ones it had cached (baseline) or, for the servers in listed, the tools just
// listed. A server without either stays unpinned until its first listing.
func (b *Bridge) pinFirst(ctx context.Context, listed map[string]*cache.Server) {
	names, baselines := b.pins.unpinned()
	for _, n := range names {
		tools := baselines[n]
		if tools == nil {
			e := listed[n]
			if e == nil {
				continue
			}
			tools = e.Tools
		}
		t, ok := b.pins.target(n)
		if !ok {
			continue
		}
		pins, ok, err := trust.PinFirst(ctx, b.trustPath(), t, tools, b.opts.Clock.Now())
		switch {
		case err != nil:
			// Unpinned, the tools are offered as before pins existed; the next listing tries again.
			b.opts.Log.Warn().Err(err).Str("server", n).Msg("tools not pinned")
		case ok:
			b.pins.set(n, t, pins)
		}
	}
}

// toolChanges says, for each listed server whose tools differ from its pins or (unpinned)
// from what it had cached before (prev), how, sorted by server.
func (b *Bridge) toolChanges(put, prev map[string]*cache.Server) []commands.ToolChange {
	var out []commands.ToolChange
	for _, n := range slices.Sorted(maps.Keys(put)) {
		var c trust.Changes
		_, pinned := b.pins.target(n)
		if pins := b.pins.pinsOf(n); pins != nil {
			c = trust.Compare(pins, put[n].Tools)
		} else if pinned {
			continue // pinned at this listing: nothing to compare with
		} else if e := prev[n]; e != nil {
			c = trust.Compare(trust.PinsOf(e.Tools), put[n].Tools)
		}
		if !c.Empty() {
			out = append(out, commands.ToolChange{Server: n, Pinned: pinned, CanPin: !needsApproval(b.servers[n].Config()),
				Added: c.Added, Changed: c.Changed, Removed: c.Removed})
		}
	}
	return out
}

// heldNote is the note naming the pinned servers whose tools are held back ("" when none
// are).
func (b *Bridge) heldNote() string {
	var parts []string
	for _, n := range b.names {
		if c, _, _, ok := b.pins.change(n); ok && len(c.Held()) > 0 {
			parts = append(parts, commands.ToolChangeText(b.opts.Surface, commands.ToolChange{Server: n, Pinned: true, Added: c.Added, Changed: c.Changed, Removed: c.Removed}))
		}
	}
	return nonEmptyLines(parts...)
}

// toolChangeDetail is /mcp <server>'s view of how its tools differ from the approved ones,
// with the approved texts kept beside the approval store (nil when nothing differs).
func (b *Bridge) toolChangeDetail(server string) *commands.ToolChange {
	c, seen, pins, ok := b.pins.change(server)
	if !ok {
		return nil
	}
	fps := make([]string, 0, len(c.Changed))
	for _, n := range c.Changed {
		fps = append(fps, pins[n])
	}
	approved := trust.ApprovedTools(b.trustPath(), fps)
	out := &commands.ToolChange{Server: server, Pinned: true, Added: c.Added, Changed: c.Changed, Removed: c.Removed}
	for _, n := range c.Changed {
		cur := seen[n]
		t := commands.ToolText{Name: n, New: cur.Description}
		if old, ok := approved[pins[n]]; ok {
			t.Old, t.OldKnown, t.Parts = old.Description, true, trust.ChangedParts(&old, &cur)
		}
		out.Texts = append(out.Texts, t)
	}
	for _, n := range c.Added {
		out.Texts = append(out.Texts, commands.ToolText{Name: n, New: seen[n].Description})
	}
	return out
}

// heldTool answers a call by registered name to a tool held back (ok false when name is
// none of them).
func (b *Bridge) heldTool(name string) (extension.ToolResult, bool) {
	for _, n := range b.names {
		c, _, _, ok := b.pins.change(n)
		if !ok {
			continue
		}
		held := c.Held()
		refs := make([]catalog.ToolRef, len(held))
		for i, t := range held {
			refs[i] = catalog.ToolRef{Server: n, Tool: t}
		}
		// The name a held tool has, or gets once approved: names stay with their tools.
		names, _ := b.cats.Namer().Assign(refs)
		for ref, reg := range names {
			if reg == name {
				return b.heldErr(n, ref.Tool, c), true
			}
		}
	}
	return extension.ToolResult{}, false
}

// heldRef is heldTool for a server's tool by its MCP name.
func (b *Bridge) heldRef(server, tool string) (extension.ToolResult, bool) {
	c, _, _, ok := b.pins.change(server)
	if !ok || !slices.Contains(c.Held(), tool) {
		return extension.ToolResult{}, false
	}
	return b.heldErr(server, tool, c), true
}

// heldErr is the answer to a call of a held-back tool. It speaks to the user through the
// model: only the user can approve the change.
func (b *Bridge) heldErr(server, tool string, c trust.Changes) extension.ToolResult {
	what := "it was added after"
	if slices.Contains(c.Changed, tool) {
		what = "its definition changed since"
	}
	sf := b.opts.Surface
	return toolresult.Error("%s", fmt.Sprintf("Tool %q of MCP server %q is held back: %s the user approved this server's tools, so it is not offered and cannot be called. "+
		"Only the user can approve it (no tool can): ask the user to review the change with %s and approve it with %s, then %s.",
		tool, server, what, sf.Cmd("", server), sf.Cmd("trust", server), sf.ReloadCmd()))
}

// ToolChangeTexts words the report's tool changes for sf, one paragraph per server.
func (r RefreshReport) ToolChangeTexts(sf commands.Surface) []string {
	out := make([]string, len(r.ToolChanges))
	for i, c := range r.ToolChanges {
		out[i] = commands.ToolChangeText(sf, c)
	}
	return out
}
