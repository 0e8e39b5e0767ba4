package bridge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/redact"
	"github.com/zot-mcp/mcp-bridge/toolresult"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// maxInstructions bounds a config entry's instructions shown to the model.
const maxInstructions = 2000

// needsApproval says whether an entry runs only after the user's approval: every entry
// that does not come from the user's global file (project files, whatever their name).
func needsApproval(c *config.Server) bool { return c.Scope != config.ScopeGlobal }

// trustPath is the approval store of this bridge.
func (b *Bridge) trustPath() string {
	if b.opts.TrustPath != "" {
		return b.opts.TrustPath
	}
	return trust.DefaultPath(b.opts.ZotHome)
}

// loadTrust marks every server that needs the user's approval and does not have it for
// this project and its current entry, and loads the pins of the servers whose tools are
// pinned (approved project servers, global servers with "pinTools": true). It reads one
// small file, only when some server needs it, and contacts nothing.
func (b *Bridge) loadTrust() {
	b.pins.reset()
	var f *trust.File
	read := func() *trust.File {
		if f == nil {
			var err error
			if f, err = trust.Read(b.trustPath()); err != nil {
				b.opts.Log.Warn().Err(err).Msg("project server approvals not read")
				b.unsafeTrustProblem(err)
			}
		}
		return f
	}
	for _, n := range b.names {
		s := b.servers[n]
		c := s.Config()
		switch {
		case !needsApproval(c):
			if c.PinTools {
				t := b.pinTarget(c)
				pins, _ := read().Pins(t)
				b.pins.set(n, t, pins)
			}
		case b.cfg.TrustProjectServers:
			// Runs without an approval, so there is none to pin its tools to.
		default:
			t := b.pinTarget(c)
			pins, ok := read().Pins(t)
			s.SetPending(!ok)
			if ok {
				b.pins.set(n, t, pins)
			}
		}
	}
}

// runnable says whether a server may be started and its tools offered.
func (b *Bridge) runnable(name string) bool {
	s := b.servers[name]
	return s.Config().Usable() && !s.Pending()
}

// approvalErr is the answer to anything that would start a server awaiting approval. It
// speaks to the user through the model: only the user can approve.
func approvalErr(s *lifecycle.Server) *lifecycle.Error {
	return s.Errorf(lifecycle.KindUntrusted, nil, "defined in the project file %s%s and not approved by the user for this project, so it is not started. "+
		"Only the user can approve it (no tool can): ask the user to review it with /mcp %s and run /mcp trust %s in zot (or mcp-bridge trust %s in a terminal), then /reload-ext.",
		s.Config().Source, commands.ReplacesText(s.Config()), s.Config().Name, s.Config().Name, s.Config().Name)
}

// RunsText says what a server entry would run or contact, as written in the file: the
// command line, or the URL without credentials or query, plus the names of env and header
// entries. It never shows an expanded value.
func RunsText(c *config.Server) string {
	var sb strings.Builder
	if c.Transport == config.TransportStdio || (c.Transport == "" && c.Raw.Command != "") {
		sb.WriteString("runs `" + textcut.Truncate(strings.Join(append([]string{c.Raw.Command}, c.Raw.Args...), " "), 200) + "`")
		if len(c.Raw.Env) > 0 {
			sb.WriteString(" with env " + strings.Join(slices.Sorted(maps.Keys(c.Raw.Env)), ", "))
		}
	} else {
		sb.WriteString("connects to " + redact.DisplayURL(c))
		if len(c.Raw.Headers) > 0 {
			sb.WriteString(" with headers " + strings.Join(slices.Sorted(maps.Keys(c.Raw.Headers)), ", "))
		}
	}
	return sb.String()
}

// pendingNames lists the servers awaiting approval, sorted.
func (b *Bridge) pendingNames() []string {
	var out []string
	for _, n := range b.names {
		if b.servers[n].NeedsApproval() {
			out = append(out, n)
		}
	}
	return out
}

// pendingNote is the once-per-start note naming the servers that wait for approval ("" when
// none do).
func (b *Bridge) pendingNote() string {
	pending := b.pendingNames()
	if len(pending) == 0 {
		return ""
	}
	// The way to approve comes first, so that it is read even where the rest is not; then
	// one line per server with what it would run, for the user to judge.
	var sb strings.Builder
	if len(pending) == 1 {
		fmt.Fprintf(&sb, "MCP: approve with /mcp trust %s (in a terminal: mcp-bridge trust %s); the project server in %s that needs your approval before it runs:",
			pending[0], pending[0], b.projectDir)
	} else {
		fmt.Fprintf(&sb, "MCP: approve with /mcp trust <server> or /mcp trust all (in a terminal: mcp-bridge trust <server>); the project servers in %s that need your approval before they run:",
			b.projectDir)
	}
	for _, n := range pending {
		c := b.servers[n].Config()
		sb.WriteString("\n  " + n + " (" + RunsText(c) + commands.ReplacesText(c) + ")")
	}
	return sb.String()
}

// pendingHint is a sentence for the model when servers wait for approval ("" otherwise).
func (b *Bridge) pendingHint() string {
	pending := b.pendingNames()
	if len(pending) == 0 {
		return ""
	}
	return fmt.Sprintf(" Project servers awaiting the user's approval (their tools are hidden and they do not run): %s. Only the user can approve them, with %s.",
		strings.Join(pending, ", "), b.opts.Surface.Cmd("trust", "<server>"))
}

// pendingSearch answers a search that names a server awaiting approval (by name, or by a
// tool name of it in select:), so the model can tell the user what to do.
func (b *Bridge) pendingSearch(q string) (extension.ToolResult, bool) {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return r == ' ' || r == ',' || r == ':' || r == '\t' || r == '"' || r == '\''
	})
	for _, n := range b.gatedNames() {
		prefix := strings.ToLower(catalog.Prefix + catalog.Sanitize(n) + "__")
		for _, w := range words {
			if w == strings.ToLower(n) || strings.HasPrefix(w, prefix) {
				return toolresult.Error("%s", b.servers[n].ApprovalErr().Msg), true
			}
		}
	}
	return extension.ToolResult{}, false
}

// gatedNames lists every server that may not start for want of approval, sorted.
func (b *Bridge) gatedNames() []string {
	var out []string
	for _, n := range b.names {
		if b.servers[n].Pending() {
			out = append(out, n)
		}
	}
	return out
}

// pendingTool answers a call to a registered-looking name of a server awaiting approval.
func (b *Bridge) pendingTool(name string) (extension.ToolResult, bool) {
	for _, n := range b.gatedNames() {
		if strings.HasPrefix(name, catalog.Prefix+catalog.Sanitize(n)+"__") {
			return toolresult.Error("%s", b.servers[n].ApprovalErr().Msg), true
		}
	}
	return extension.ToolResult{}, false
}

// approve stores the approval of each named server as its entry is now, with its tools as
// cached now (a global server with "pinTools": true: only its tools), lets them run and
// puts their fresh cached tools into the catalog; list are the usable ones whose tools
// must still be listed.
func (b *Bridge) approve(ctx context.Context, names []string) (list []string, err error) {
	file, _ := cache.Read(b.opts.CachePath)
	entries := file.View(b.projectKey)
	grants := make([]trust.Grant, 0, len(names))
	for _, n := range names {
		c := b.servers[n].Config()
		g := trust.Grant{Target: b.pinTarget(c)}
		if e := entries[n]; e != nil && e.Fingerprint == c.Fingerprint() {
			g.Tools, g.Listed = e.Tools, true
		}
		grants = append(grants, g)
	}
	if err := trust.ApproveTools(ctx, b.trustPath(), grants, b.opts.Clock.Now()); err != nil {
		return nil, err
	}
	stored, err := trust.Read(b.trustPath())
	if err != nil {
		return nil, err
	}
	put := map[string]*cache.Server{}
	for i, n := range names {
		s := b.servers[n]
		pins, _ := stored.Pins(grants[i].Target)
		b.pins.set(n, grants[i].Target, pins)
		s.SetPending(false)
		if !s.Config().Usable() {
			continue
		}
		if grants[i].Listed {
			put[n] = entries[n]
		} else {
			list = append(list, n)
		}
	}
	if len(put) > 0 {
		b.mergeLive(put)
	}
	return list, nil
}

// listLater lists the servers' tools in the background and reports the outcome by note.
func (b *Bridge) listLater(names []string) {
	b.background(func() {
		parts, warn := b.RefreshEach(b.bgCtx, names, nil).noteParts(b.opts.Surface, b.mode == ModeProxy)
		switch {
		case warn:
			b.note("warn", strings.Join(parts, "\n"))
		case len(parts) > 0:
			b.note("success", strings.Join(parts, "\n"))
		}
	})
}

// revoke withdraws the approvals of the named servers (which nil: every approval of the
// project, also of servers no longer configured), and stops and hides those servers unless
// trustProjectServers lets them run anyway.
func (b *Bridge) revoke(ctx context.Context, names, which []string) (removed []string, err error) {
	removed, err = trust.Revoke(ctx, b.trustPath(), b.projectDir, which)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, n := range names {
		s := b.servers[n]
		if b.cfg.TrustProjectServers {
			continue
		}
		s.SetPending(true)
		b.pins.drop(n)
		drop[n] = true
		s.Stop(ctx)
	}
	b.dropLive(drop)
	return removed, nil
}

// dropLive removes servers' tools from the live catalog.
func (b *Bridge) dropLive(drop map[string]bool) {
	if len(drop) == 0 {
		return
	}
	b.changeCatalog(catalog.Change{Drop: drop})
	b.frontChanged()
}

// instructionsFor is the entry's instructions as shown to the model ("" when none),
// sanitized: a project file's text is no more visible to its reader than a server's.
func instructionsFor(c *config.Server) string {
	in := strings.TrimSpace(safetext.Sanitize(c.Instructions))
	if in == "" {
		return ""
	}
	return fmt.Sprintf("Instructions for MCP server %q: %s", c.Name, textcut.Truncate(in, maxInstructions))
}

// searchInstructions lists the instructions of the servers among shown, once each.
func (b *Bridge) searchInstructions(shown []*catalog.Tool) string {
	seen := map[string]bool{}
	var parts []string
	for _, e := range shown {
		if seen[e.Server] {
			continue
		}
		seen[e.Server] = true
		if s, ok := b.servers[e.Server]; ok {
			if in := instructionsFor(s.Config()); in != "" {
				parts = append(parts, in)
			}
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(parts, "\n\n")
}

// withFirstInstructions puts the server's instructions before its first call result of
// this session (proxy mode, where the model may not have searched for the tool).
func (b *Bridge) withFirstInstructions(s *lifecycle.Server, r extension.ToolResult) extension.ToolResult {
	if b.mode != ModeProxy {
		return r
	}
	in := instructionsFor(s.Config())
	if in == "" || !s.ClaimInstructions() {
		return r
	}
	r.Content = append([]extension.Content{{Type: "text", Text: in}}, r.Content...)
	return r
}
