package bridge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
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
// this project and its current entry. It reads one small file and contacts nothing.
func (b *Bridge) loadTrust() {
	if b.cfg.TrustProjectServers {
		return
	}
	var f *trust.File
	for _, n := range b.names {
		s := b.servers[n]
		if !needsApproval(s.cfg) {
			continue
		}
		if f == nil {
			var err error
			if f, err = trust.Read(b.trustPath()); err != nil {
				b.opts.Log.Warn().Err(err).Msg("project server approvals not read")
			}
		}
		s.pending.Store(!f.Approved(b.projectDir, n, trust.Fingerprint(s.cfg)))
	}
}

// runnable says whether a server may be started and its tools offered.
func (b *Bridge) runnable(name string) bool {
	s := b.servers[name]
	return s.cfg.Usable() && !s.pending.Load()
}

// NeedsApproval reports whether the server is from a project file, enabled, and waits for
// the user's approval (it is never started or contacted until then). A disabled entry is
// not reported, though it stays gated: enabling it does not change its fingerprint.
func (s *Server) NeedsApproval() bool { return s.pending.Load() && s.cfg.Enabled }

// approvalErr is the answer to anything that would start a server awaiting approval. It
// speaks to the user through the model: only the user can approve.
func (s *Server) approvalErr() *Error {
	return s.errorf(KindUntrusted, nil, "defined in the project file %s%s and not approved by the user for this project, so it is not started. "+
		"Only the user can approve it (no tool can): ask the user to review it with /mcp %s and run /mcp trust %s in zot (or mcp-bridge trust %s in a terminal), then /reload-ext.",
		s.cfg.Source, ReplacesText(s.cfg), s.cfg.Name, s.cfg.Name, s.cfg.Name)
}

// ReplacesText flags an entry that replaced the global entry of the same name ("" when it
// replaced none).
func ReplacesText(c *config.Server) string {
	if c.Replaces == "" {
		return ""
	}
	return " (it replaces the entry of the same name in " + c.Replaces + ")"
}

// RunsText says what a server entry would run or contact, as written in the file: the
// command line, or the URL without credentials or query, plus the names of env and header
// entries. It never shows an expanded value.
func RunsText(c *config.Server) string {
	var sb strings.Builder
	if c.Transport == config.TransportStdio || (c.Transport == "" && c.Raw.Command != "") {
		sb.WriteString("runs `" + Truncate(strings.Join(append([]string{c.Raw.Command}, c.Raw.Args...), " "), 200) + "`")
		if len(c.Raw.Env) > 0 {
			sb.WriteString(" with env " + strings.Join(slices.Sorted(maps.Keys(c.Raw.Env)), ", "))
		}
	} else {
		sb.WriteString("connects to " + displayURL(c))
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
	items := make([]string, len(pending))
	for i, n := range pending {
		c := b.servers[n].cfg
		items[i] = n + " (" + RunsText(c) + ReplacesText(c) + ")"
	}
	return fmt.Sprintf("MCP: %d project server(s) in %s need your approval before they run: %s. Review with /mcp <server>; approve with /mcp trust <server> (or /mcp trust all), then /reload-ext. In a terminal: mcp-bridge trust <server>.",
		len(pending), b.projectDir, strings.Join(items, "; "))
}

// pendingHint is a sentence for the model when servers wait for approval ("" otherwise).
func (b *Bridge) pendingHint() string {
	pending := b.pendingNames()
	if len(pending) == 0 {
		return ""
	}
	return fmt.Sprintf(" Project servers awaiting the user's approval (their tools are hidden and they do not run): %s. Only the user can approve them, with /mcp trust <server>.",
		strings.Join(pending, ", "))
}

// pendingSearch answers a search that names a server awaiting approval (by name, or by a
// tool name of it in select:), so the model can tell the user what to do.
func (b *Bridge) pendingSearch(q string) (extension.ToolResult, bool) {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return r == ' ' || r == ',' || r == ':' || r == '\t' || r == '"' || r == '\''
	})
	for _, n := range b.gatedNames() {
		prefix := strings.ToLower(Prefix + Sanitize(n) + "__")
		for _, w := range words {
			if w == strings.ToLower(n) || strings.HasPrefix(w, prefix) {
				return ErrorResult("%s", b.servers[n].approvalErr().Msg), true
			}
		}
	}
	return extension.ToolResult{}, false
}

// gatedNames lists every server that may not start for want of approval, sorted.
func (b *Bridge) gatedNames() []string {
	var out []string
	for _, n := range b.names {
		if b.servers[n].pending.Load() {
			out = append(out, n)
		}
	}
	return out
}

// pendingTool answers a call to a registered-looking name of a server awaiting approval.
func (b *Bridge) pendingTool(name string) (extension.ToolResult, bool) {
	for _, n := range b.gatedNames() {
		if strings.HasPrefix(name, Prefix+Sanitize(n)+"__") {
			return ErrorResult("%s", b.servers[n].approvalErr().Msg), true
		}
	}
	return extension.ToolResult{}, false
}

// trustTargets resolves the argument of trust/untrust to servers that need approval.
func (b *Bridge) trustTargets(sub string, args []string) ([]string, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("usage: /mcp %s <server|all>", sub)
	}
	if args[0] == "all" {
		var out []string
		for _, n := range b.names {
			if needsApproval(b.servers[n].cfg) {
				out = append(out, n)
			}
		}
		return out, nil
	}
	s, ok := b.servers[args[0]]
	if !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], suggest(args[0], b.names), b.serverList())
	}
	if !needsApproval(s.cfg) {
		return nil, fmt.Errorf("MCP server %q is defined in your global file %s; it needs no approval", args[0], s.cfg.Source)
	}
	return args, nil
}

// trustCommand approves project servers for this project: it stores the approval of each
// entry as it is now, lets the servers run, and (inside zot) lists the tools of those
// without a fresh cache entry in the background.
func (b *Bridge) trustCommand(ctx context.Context, args []string) (string, error) {
	if len(args) == 0 {
		return b.trustList(), nil
	}
	if b.cfg.TrustProjectServers {
		return "", fmt.Errorf("\"trustProjectServers\": true is set in %s: project servers run without approval, so there is nothing to approve", config.GlobalPath(b.opts.ZotHome))
	}
	names, err := b.trustTargets("trust", args)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "No project servers to approve.", nil
	}
	if b.projectDir == "" {
		return "", fmt.Errorf("the project directory is unknown, so no approval can be stored")
	}
	fps := make(map[string]string, len(names))
	for _, n := range names {
		fps[n] = trust.Fingerprint(b.servers[n].cfg)
	}
	if err := trust.Approve(ctx, b.trustPath(), b.projectDir, fps, b.opts.Clock.Now()); err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Approved for %s (until the entry changes):", b.projectDir)
	put := map[string]*cache.Entry{}
	var list []string
	file, _ := cache.Read(b.opts.CachePath)
	for _, n := range names {
		s := b.servers[n]
		s.pending.Store(false)
		fmt.Fprintf(&sb, "\n  %s: %s%s", n, RunsText(s.cfg), ReplacesText(s.cfg))
		if !s.cfg.Usable() {
			sb.WriteString(" — not usable yet (disabled or config error; see /mcp " + n + ")")
			continue
		}
		if e := file.Servers[n]; e != nil && e.Fingerprint == s.cfg.Fingerprint() {
			put[n] = e
		} else {
			list = append(list, n)
		}
	}
	if len(put) > 0 {
		b.mergeLive(put)
	}
	switch {
	case len(list) == 0:
		sb.WriteString("\nRun /reload-ext in zot to load their tools.")
	case b.sess.Load() == nil:
		sb.WriteString("\nTheir tools are listed on the next zot start (or run mcp-bridge refresh).")
	default:
		sb.WriteString("\nListing the tools of " + strings.Join(list, ", ") + " in the background; a note will say when /reload-ext can load them.")
		b.bg.Add(1)
		go func() {
			defer b.bg.Done()
			parts, warn := b.RefreshEach(b.bgCtx, list, nil).noteParts(b.opts.Surface)
			switch {
			case warn:
				b.note("warn", strings.Join(parts, "\n"))
			case len(parts) > 0:
				b.note("success", strings.Join(parts, "\n"))
			}
		}()
	}
	return sb.String(), nil
}

// untrustCommand withdraws approvals for this project and stops the servers concerned.
func (b *Bridge) untrustCommand(ctx context.Context, args []string) (string, error) {
	names, err := b.trustTargets("untrust", args)
	if err != nil {
		return "", err
	}
	if b.projectDir == "" {
		return "", fmt.Errorf("the project directory is unknown, so there are no approvals to withdraw")
	}
	var which []string // nil: every approval of the project, also of servers no longer configured
	if args[0] != "all" {
		which = names
	}
	removed, err := trust.Revoke(ctx, b.trustPath(), b.projectDir, which)
	if err != nil {
		return "", err
	}
	drop := map[string]bool{}
	for _, n := range names {
		s := b.servers[n]
		if b.cfg.TrustProjectServers {
			continue
		}
		s.pending.Store(true)
		drop[n] = true
		s.Stop(ctx)
	}
	b.dropLive(drop)
	if len(removed) == 0 {
		return fmt.Sprintf("No approvals to withdraw for %s in %s.", strings.Join(args, " "), b.projectDir), nil
	}
	text := fmt.Sprintf("Withdrew the approval of %s for %s; they are stopped and need approval again.", strings.Join(removed, ", "), b.projectDir)
	if b.cfg.TrustProjectServers {
		text += " Note: \"trustProjectServers\": true in your global file still lets project servers run."
	}
	return text, nil
}

// trustList is /mcp trust without arguments: what waits for approval.
func (b *Bridge) trustList() string {
	var sb strings.Builder
	pending := b.pendingNames()
	if len(pending) == 0 {
		sb.WriteString("No project servers wait for approval.")
	} else {
		sb.WriteString("Project servers awaiting your approval:")
		for _, n := range pending {
			c := b.servers[n].cfg
			fmt.Fprintf(&sb, "\n  %s: %s%s [%s]", n, RunsText(c), ReplacesText(c), c.Source)
		}
	}
	sb.WriteString("\nUsage: /mcp trust <server|all> · /mcp untrust <server|all>")
	return sb.String()
}

// dropLive removes servers' tools from the live catalog.
func (b *Bridge) dropLive(drop map[string]bool) {
	if len(drop) == 0 {
		return
	}
	b.changeCatalog(catalogChange{drop: drop})
}

// instructionsFor is the entry's instructions as shown to the model ("" when none).
func instructionsFor(c *config.Server) string {
	in := strings.TrimSpace(c.Instructions)
	if in == "" {
		return ""
	}
	return fmt.Sprintf("Instructions for MCP server %q: %s", c.Name, Truncate(in, maxInstructions))
}

// searchInstructions lists the instructions of the servers among shown, once each.
func (b *Bridge) searchInstructions(shown []*entry) string {
	seen := map[string]bool{}
	var parts []string
	for _, e := range shown {
		if seen[e.Server] {
			continue
		}
		seen[e.Server] = true
		if s, ok := b.servers[e.Server]; ok {
			if in := instructionsFor(s.cfg); in != "" {
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
func (b *Bridge) withFirstInstructions(s *Server, r extension.ToolResult) extension.ToolResult {
	if b.mode != ModeProxy {
		return r
	}
	in := instructionsFor(s.cfg)
	if in == "" || !s.instructionsShown.CompareAndSwap(false, true) {
		return r
	}
	r.Content = append([]extension.Content{{Type: "text", Text: in}}, r.Content...)
	return r
}
