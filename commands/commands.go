package commands

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/internal/textwrap"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	"github.com/zot-mcp/mcp-bridge/templates"
)

const helpText = `/mcp — MCP servers bridged into zot
  /mcp [status]                status of every server
  /mcp help                    this help
  /mcp <server>                details of one server
  /mcp start <server|all>      start now (clears backoff and parking)
  /mcp stop <server|all>       stop now (the next call wakes it again)
  /mcp restart [server]        stop and start (all servers without a name)
  /mcp refresh [server]        re-list tools and update the cache
  /mcp login <server>          OAuth login for an HTTP(S) server (opens the browser)
  /mcp logout <server>         forget the server's stored OAuth credentials
  /mcp trust [server|all]      approve project servers for this project (no argument: list them)
  /mcp untrust <server|all>    withdraw an approval (the server is stopped)
  /mcp answer <n> field=value … answer a server's question (request <n> of its note)
  /mcp accept <n>              accept it with the defaults (url requests: open the URL)
  /mcp decline <n>             decline it; /mcp cancel <n> dismisses it
  /mcp prompts [server]        list the servers' prompts and their arguments
  /mcp prompt <server> <name> [key=value …]   use a prompt as your next message
  /mcp setup templates         list server templates
  /mcp setup add <template> [--global|--project] [--name <server>] [--path <dir>] [--force]
Logs: zot ext logs mcp-bridge -f`

// host is the Host as the commands use it; its methods are the command handlers. width is
// the columns the answer is laid out for.
type host struct {
	Host
	width int
}

// Run serves /mcp for the zot host, laid out for cmd.Width (LineWidth when 0).
func Run(ctx context.Context, h Host, cmd extension.Command) extension.CommandResponse {
	b := host{h, LineWidth}
	if cmd.Width > 0 {
		b.width = cmd.Width
	}
	if cmd.Name != Name {
		return extension.CommandResponse{Error: "unknown command /" + cmd.Name}
	}
	if r, ok := b.promptCommand(ctx, cmd.Args); ok {
		return r
	}
	text, err := b.args(ctx, strings.Fields(cmd.Args))
	if err != nil {
		return extension.CommandResponse{Action: "display", Display: text, Error: err.Error()}
	}
	return extension.CommandResponse{Action: "display", Display: text}
}

// Line runs one /mcp command line and returns its text.
func Line(ctx context.Context, h Host, line string) (string, error) {
	return Args(ctx, h, strings.Fields(line))
}

// Args runs one /mcp command given as separate arguments, so that the CLI can pass
// a value with spaces (a quoted --name) through intact.
func Args(ctx context.Context, h Host, f []string) (string, error) {
	return host{h, LineWidth}.args(ctx, f)
}

// args runs one /mcp command given as separate arguments.
func (b host) args(ctx context.Context, f []string) (string, error) {
	if len(f) == 0 {
		return b.statusText(), nil
	}
	sub, rest := f[0], f[1:]
	switch sub {
	case "help", "-h", "--help":
		return textwrap.Wrap(helpText, b.width), nil
	case "status":
		return b.statusText(), nil
	case "start", "stop", "restart", "refresh":
		return b.lifecycleCommand(ctx, sub, rest)
	case "setup":
		return b.setupCommand(ctx, rest)
	case "login":
		return b.loginCommand(ctx, rest)
	case "logout":
		return b.logoutCommand(ctx, rest)
	case "trust":
		return b.trust(ctx, rest)
	case "untrust":
		return b.untrust(ctx, rest)
	case "answer", "accept", "decline", "cancel":
		return b.answer(ctx, sub, rest)
	case "prompts":
		return b.prompts(rest)
	case "prompt":
		return b.prompt(ctx, rest)
	}
	if _, ok := b.Server(sub); ok {
		if len(rest) > 0 {
			return "", fmt.Errorf("/mcp %s takes no arguments; to act on it: /mcp start|stop|restart|refresh %s", sub, sub)
		}
		return b.detailText(sub) + b.MoreDetail(sub), nil
	}
	cands := append([]string{"help", "status", "start", "stop", "restart", "refresh", "setup", "login", "logout", "trust", "untrust", "prompts", "prompt"}, b.Names()...)
	return helpText, fmt.Errorf("unknown /mcp command or server %q.%s Commands: help, status, start, stop, restart, refresh, setup, login, logout, trust, untrust, prompts, prompt; servers: %s",
		sub, textdist.Suggest(sub, cands), b.serverList())
}

func (b host) serverList() string { return ServerList(b.Names()) }

// ServerList names the configured servers for an error message.
func ServerList(names []string) string {
	if len(names) == 0 {
		return "(none configured)"
	}
	return strings.Join(names, ", ")
}

// targets resolves a server argument ("all" or a name; empty = all when allowEmpty).
func (b host) targets(sub string, args []string, allowEmpty bool) ([]string, error) {
	if len(args) == 0 {
		if allowEmpty {
			return b.Names(), nil
		}
		return nil, fmt.Errorf("usage: /mcp %s <server|all>; servers: %s", sub, b.serverList())
	}
	if len(args) > 1 {
		return nil, fmt.Errorf("usage: /mcp %s <server|all> (one name)", sub)
	}
	if args[0] == "all" {
		return b.Names(), nil
	}
	if _, ok := b.Server(args[0]); !ok {
		return nil, fmt.Errorf("unknown server %q.%s Servers: %s", args[0], textdist.Suggest(args[0], b.Names()), b.serverList())
	}
	return args, nil
}

// lifecycleCommand starts work in the background and waits for it only as long as the
// host's command deadline allows; anything slower reports with a note when done.
func (b host) lifecycleCommand(ctx context.Context, sub string, args []string) (string, error) {
	names, err := b.targets(sub, args, sub == "restart" || sub == "refresh")
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", fmt.Errorf("nothing to %s: no MCP servers configured (see /mcp setup)", sub)
	}
	var usable, skipped, pending []string
	for _, n := range names {
		s, _ := b.Server(n)
		switch {
		case s.Pending():
			pending = append(pending, n)
		case s.Config().Usable():
			usable = append(usable, n)
		default:
			skipped = append(skipped, n)
		}
	}
	if len(usable) == 0 && len(pending) == 1 && len(names) == 1 {
		s, _ := b.Server(pending[0])
		return "", s.ApprovalErr()
	}
	if len(usable) == 0 && len(pending) > 0 {
		return "", fmt.Errorf("nothing to %s: %s need your approval first (review with /mcp <server>, approve with /mcp trust <server>)", sub, strings.Join(pending, ", "))
	}
	if len(usable) == 0 {
		var why []string
		for _, n := range names {
			if s, _ := b.Server(n); s.Config().Err != "" {
				why = append(why, fmt.Sprintf("%s has a config error: %s", n, s.Config().Err))
			} else {
				why = append(why, n+" is disabled")
			}
		}
		return "", fmt.Errorf("nothing to %s: %s", sub, strings.Join(why, "; "))
	}
	type outcome struct {
		text     string
		failures []string // "server: reason", one per server that failed
	}
	done := make(chan outcome, 1)
	b.Background(func(bgCtx context.Context) {
		text, failures := b.runLifecycle(bgCtx, sub, usable)
		if len(skipped) > 0 {
			text += "\nSkipped (disabled or config error): " + strings.Join(skipped, ", ")
		}
		if len(pending) > 0 {
			text += "\nSkipped (needs your approval: /mcp trust <server>): " + strings.Join(pending, ", ")
		}
		done <- outcome{text, failures}
	})
	// ctx's deadline, when earlier than the wait, ends the select through ctx.Done.
	waited, stop := b.CommandWait()
	defer stop()
	select {
	case out := <-done:
		if len(out.failures) > 0 {
			// The error line is what the host surely shows: it carries each cause itself.
			return out.text, fmt.Errorf("%s failed: %s", strings.Join(append([]string{"/mcp", sub}, args...), " "), strings.Join(out.failures, "; "))
		}
		return out.text, nil
	case <-waited:
	case <-ctx.Done():
	}
	b.Background(func(bgCtx context.Context) {
		select {
		case out := <-done:
			level := "success"
			if len(out.failures) > 0 {
				level = "warn"
			}
			b.Note(level, out.text)
		case <-bgCtx.Done():
		}
	})
	return strings.Join(append([]string{"/mcp", sub}, args...), " ") + " is still running; a note will report the outcome.", nil
}

// runLifecycle does the work of a lifecycle command; failures names each server whose part
// failed.
func (b host) runLifecycle(ctx context.Context, sub string, names []string) (text string, failures []string) {
	switch sub {
	case "stop":
		b.each(names, func(_ string, s Server) string { s.Stop(ctx); return "stopped" })
		return fmt.Sprintf("Stopped %s.", strings.Join(names, ", ")), nil
	case "refresh":
		rep := b.Refresh(ctx, names)
		var sb strings.Builder
		if rep.SaveErr != "" {
			fmt.Fprintf(&sb, "Listed %d of %s, but %s.", rep.Listed, words.Count(len(names), "server"), rep.SaveErr)
		} else {
			fmt.Fprintf(&sb, "Refreshed %d of %s.", rep.Listed, words.Count(len(names), "server"))
			// A server whose changes are held back gets its own paragraph, not a reload
			// that would load nothing of them.
			reload := WithoutHeld(rep.Changed, rep.ToolChanges)
			if len(reload) > 0 {
				fmt.Fprintf(&sb, " Tools changed for %s: %s.", strings.Join(reload, ", "), b.Surface().ToolsChanged(b.proxy()))
			} else if rep.Listed > 0 && len(rep.ToolChanges) == 0 {
				sb.WriteString(" No tool changes; no reload needed.")
			}
		}
		for _, c := range rep.ToolChanges {
			sb.WriteString("\n  " + ToolChangeText(b.Surface(), c))
		}
		// A failure carries the server's words (its stderr tail, an error it answered).
		for _, e := range rep.Failed {
			e = safetext.Escape(e)
			sb.WriteString("\n  " + e)
			failures = append(failures, e)
		}
		if rep.SaveErr != "" {
			failures = append(failures, rep.SaveErr)
		}
		return sb.String(), failures
	}
	var mu sync.Mutex
	failed := map[string]string{}
	res := b.each(names, func(name string, s Server) string {
		if sub == "restart" {
			s.Stop(ctx)
		}
		if err := s.Start(ctx); err != nil {
			why := safetext.Escape(err.Error()) // it may carry the server's words
			mu.Lock()
			failed[name] = why
			mu.Unlock()
			return failedPrefix + why
		}
		return "ready, " + words.Count(s.Status().Tools, "tool")
	})
	var sb strings.Builder
	verb := map[string]string{"start": "Started", "restart": "Restarted"}[sub]
	sb.WriteString(verb + ":")
	for _, n := range names {
		sb.WriteString("\n  " + n + ": " + res[n])
		if why, ok := failed[n]; ok {
			failures = append(failures, n+": "+why)
		}
	}
	return sb.String(), failures
}

const failedPrefix = "failed: "

// proxy reports whether the host gets the proxy tools, whose catalog needs no reload.
func (b host) proxy() bool {
	m, _ := b.Mode()
	return m == "proxy"
}

// each runs f on the named servers in parallel.
func (b host) each(names []string, f func(name string, s Server) string) map[string]string {
	out := make(map[string]string, len(names))
	type kv struct{ k, v string }
	ch := make(chan kv, len(names))
	for _, n := range names {
		s, _ := b.Server(n)
		go func() { ch <- kv{n, f(n, s)} }()
	}
	for range names {
		r := <-ch
		out[r.k] = r.v
	}
	return out
}

// statusText is the /mcp dashboard.
func (b host) statusText() string {
	var sb strings.Builder
	counts := b.CachedTools()
	cfg := b.Config()
	mode, deferred := b.Mode()
	fmt.Fprintf(&sb, "MCP servers (%d) — mode: %s (%s)\n", len(b.Names()), mode, modeBrief(cfg, deferred))
	broken := false
	for _, f := range cfg.Files {
		broken = broken || f.Err != ""
	}
	switch {
	case len(b.Names()) == 0 && broken:
		sb.WriteString("  none loaded: a config file is broken (below); fix it, then /reload-ext\n")
	case len(b.Names()) == 0:
		sb.WriteString("  none configured. Add one: /mcp setup add <template> (see /mcp setup templates), or edit " +
			config.GlobalPath(b.ZotHome()) + "\n")
	}
	sf := b.Surface()
	for _, n := range b.Names() {
		s, _ := b.Server(n)
		c := s.Config()
		st := s.Status()
		login := st.NeedsLogin && st.State != StateDisabled
		pending := s.NeedsApproval()
		state := st.word(c, pending)
		tools := counts[n]
		if st.Tools > tools {
			tools = st.Tools
		}
		// The state column is as wide as its longest word ("needs approval").
		line := fmt.Sprintf("  %-20s %-14s %3d %-5s  %s", n, state, tools, words.Noun(tools, "tool"), shortSource(c))
		if c.Replaces != "" {
			line += " replaces global"
		}
		note := ""
		switch {
		case pending:
			note = s.RunsText() + "; approve: " + sf.Cmd("trust", n)
		case login:
			note = "run " + sf.Cmd("login", n)
		case st.LastError != "" && st.State != StateReady:
			// The server's name is already on the row; /mcp <server> has the whole error.
			// It may carry the server's words (its stderr tail), shown escaped.
			note = safetext.Escape(strings.TrimPrefix(st.LastError, fmt.Sprintf("MCP server %q: ", n)))
			if more := "; all of it: " + sf.Cmd("", n); utf8.RuneCountInString(note) > 2*b.width {
				note = textwrap.Shorten(note, 2*b.width-utf8.RuneCountInString(more)) + more
			}
		}
		switch {
		case note == "":
		case utf8.RuneCountInString(line)+len("  — ")+utf8.RuneCountInString(note) <= b.width:
			line += "  — " + note
		default:
			// On its own line (wrapped further if need be), so it reads as one phrase.
			line += "\n      — " + note
		}
		sb.WriteString(line + "\n")
	}
	for _, p := range cfg.Problems {
		if p.Server == "" {
			sb.WriteString("  problem: " + p.String() + "\n")
		}
	}
	sb.WriteString(joinItems("Commands: ", "  ", b.width, "/mcp <server>", "start|stop|restart|refresh <server|all>",
		"login|logout <server>", "trust|untrust <server|all>", "setup|help"))
	return textwrap.Wrap(sb.String(), b.width)
}

// joinItems joins items with " · " after lead, starting a new line (indented by cont) at
// an item rather than inside one when the next item would pass width.
func joinItems(lead, cont string, width int, items ...string) string {
	var sb strings.Builder
	sb.WriteString(lead)
	col, first := utf8.RuneCountInString(lead), true
	for _, it := range items {
		n := utf8.RuneCountInString(it)
		switch {
		case first:
		case col+3+n+2 <= width: // " · ", the item and room for a closing " ·"
			sb.WriteString(" · ")
			col += 3
		default:
			sb.WriteString(" ·\n" + cont)
			col = utf8.RuneCountInString(cont)
		}
		sb.WriteString(it)
		col += n
		first = false
	}
	return sb.String()
}

// protocolText says which MCP revision the server speaks and how that was decided.
func protocolText(c *config.Server, st Status) string {
	era := func(v string) string {
		if mcp.IsModernProtocol(v) {
			return v + " (modern)"
		}
		return v + " (legacy)"
	}
	switch {
	case c.ProtocolVersion != "":
		return era(c.ProtocolVersion) + `, pinned by "protocolVersion" in ` + c.Source
	case st.Protocol != "":
		return era(st.Protocol) + ", negotiated"
	}
	return "not negotiated yet (the first connection asks with server/discover)"
}

func shortSource(s *config.Server) string {
	// Another client's project file is named, so a server from .mcp.json is not
	// mistaken for one of .zot/mcp.json.
	if f := s.ShortSource(); s.Scope == config.ScopeProject && f != ".zot/mcp.json" {
		return "(" + s.Scope + " " + f + ")"
	}
	return "(" + s.Scope + ")"
}

// detailText describes one server; values that came from ${VAR} are shown as written.
func (b host) detailText(name string) string {
	s, _ := b.Server(name)
	c := s.Config()
	st := s.Status()
	sf := b.Surface()
	var sb strings.Builder
	fmt.Fprintf(&sb, "MCP server %q — %s\n", name, st.word(c, s.NeedsApproval()))
	fmt.Fprintf(&sb, "  defined in: %s (%s)\n", c.Source, c.Scope)
	if c.Replaces != "" {
		fmt.Fprintf(&sb, "  replaces:   the entry of the same name in %s\n", c.Replaces)
	}
	if c.Scope != config.ScopeGlobal {
		switch {
		case s.Pending():
			fmt.Fprintf(&sb, "  trust:      needs your approval — it %s; approve with %s\n", s.RunsText(), sf.Cmd("trust", name))
		case b.Config().TrustProjectServers:
			sb.WriteString("  trust:      runs without approval (\"trustProjectServers\": true in the global file)\n")
		default:
			fmt.Fprintf(&sb, "  trust:      approved for this project (%s withdraws it)\n", sf.Cmd("untrust", name))
		}
	}
	tr := string(c.Transport)
	if c.TransportGuessed {
		tr += " (url only: tries streamable-http, then sse)"
	}
	fmt.Fprintf(&sb, "  transport:  %s\n", tr)
	fmt.Fprintf(&sb, "  protocol:   %s\n", protocolText(c, st))
	sb.WriteString(filterLines(b.Config(), c))
	if c.Transport == config.TransportStdio {
		fmt.Fprintf(&sb, "  command:    %s\n", s.CommandLine())
		if len(c.Raw.Env) > 0 {
			fmt.Fprintf(&sb, "  env:        %s\n", strings.Join(redactMap(c.Raw.Env), ", "))
		}
		fmt.Fprintf(&sb, "  envPolicy:  %s\n", c.EnvPolicy)
		dir := c.Raw.Cwd
		if dir == "" {
			dir = b.ProjectDir() + " (project)"
		}
		fmt.Fprintf(&sb, "  cwd:        %s\n", dir)
	} else {
		fmt.Fprintf(&sb, "  url:        %s\n", s.URL())
		if len(c.Raw.Headers) > 0 {
			fmt.Fprintf(&sb, "  headers:    %s\n", strings.Join(redactMap(c.Raw.Headers), ", "))
		}
		if o := s.OAuthDetail(); o != "" {
			fmt.Fprintf(&sb, "  oauth:      %s\n", o)
		}
	}
	idle := c.IdleTimeout.String()
	if c.IdleTimeout == 0 {
		idle = "never"
	}
	fmt.Fprintf(&sb, "  timeouts:   connect %s, request %s, idle %s\n", c.ConnectTimeout, c.RequestTimeout, idle)
	fmt.Fprintf(&sb, "  tools:      %d cached", b.CachedTools()[name])
	if st.Tools > 0 {
		fmt.Fprintf(&sb, ", %d listed this session", st.Tools)
	}
	sb.WriteString("\n")
	if t := s.SkippedText(); t != "" {
		fmt.Fprintf(&sb, "  skipped:    %s\n", t)
	}
	sb.WriteString(toolChangeLines(sf, b.ToolChanges(name)))
	if !st.LastUsed.IsZero() {
		fmt.Fprintf(&sb, "  last used:  %s\n", st.LastUsed.Format(time.RFC3339))
	}
	if st.LastError != "" {
		fmt.Fprintf(&sb, "  last error: %s\n", safetext.Escape(st.LastError))
		switch {
		case st.NeedsLogin && st.State != StateDisabled:
			fmt.Fprintf(&sb, "  next:       run %s\n", sf.Cmd("login", name))
		case st.State == StateParked, st.State == StateBackoff:
			fmt.Fprintf(&sb, "  next:       fix the cause, then %s\n", sf.Cmd("start", name))
		case st.State == StateAsleep, st.State == StateStarting:
			fmt.Fprintf(&sb, "  next:       fix the cause; the next call retries, or run %s\n", sf.Cmd("start", name))
		case st.State == StateDisabled:
			fmt.Fprintf(&sb, "  next:       edit %s, then %s\n", c.Source, sf.ReloadCmd())
		}
	} else if st.State == StateDisabled {
		fmt.Fprintf(&sb, "  next:       to use it, set \"enabled\": true (or remove \"disabled\") in %s, then %s\n", c.Source, sf.ReloadCmd())
	}
	if len(st.Stderr) > 0 {
		fmt.Fprintf(&sb, "  stderr:     last %d of %d lines\n", len(st.Stderr), st.StderrSeen)
		for _, l := range st.Stderr {
			fmt.Fprintf(&sb, "    %s\n", safetext.Escape(s.Redact(l))) // the server's raw output
		}
	} else if sf.Terminal() && c.Transport == config.TransportStdio && c.Usable() {
		// A CLI run starts afresh, so it has no stderr of an earlier one to show.
		fmt.Fprintf(&sb, "  stderr:     not kept between commands; %s starts it and shows its last lines if it fails\n", sf.StderrCmd(name))
	}
	sb.WriteString("  logs:       " + sf.Logs())
	return sb.String()
}

// Detail is /mcp <server> for the named server (the CLI's get).
func Detail(h Host, name string) (string, bool) {
	if _, ok := h.Server(name); !ok {
		return "", false
	}
	return host{h, LineWidth}.detailText(name), true
}

// redactMap shows each key with its value redacted by detailValue.
func redactMap(m map[string]string) []string {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + DetailValue(m[k])
	}
	return out
}

// DetailValue shows a value only when it is exactly one ${VAR} reference without a
// default. Literal text (a default included) is hidden, since it is often a secret; the
// variables the value refers to are still named.
func DetailValue(v string) string {
	refs := config.Refs(v)
	if len(refs) == 1 && refs[0].Start == 0 && refs[0].End == len(v) && !refs[0].Default {
		return v
	}
	if len(refs) == 0 {
		return "<set>"
	}
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = "${" + r.Name + "}"
	}
	return "<set, uses " + strings.Join(names, " ") + ">"
}

const setupHelp = `%[1]s — add an MCP server from a template
  %[1]s templates
  %[1]s add <template> [--global|--project] [--name <server>] [--path <dir>] [--force]
The global file (%[2]s) is the default; --project writes <project>/.zot/mcp.json.
--path gives the absolute directory a template runs from (gbr: your Build Remote Agent checkout).
Secrets are never written: templates refer to ${VARS} that you set in your environment.
After adding, %[3]s.`

// setupCommand lists templates or adds one to a config file, keeping its comments.
func (b host) setupCommand(ctx context.Context, args []string) (string, error) {
	help := fmt.Sprintf(setupHelp, b.Surface().Cmd("setup"), config.GlobalPath(b.ZotHome()), b.Surface().Reload())
	if len(args) == 0 || args[0] == "help" {
		return help + "\n\n" + templateList(), nil
	}
	switch args[0] {
	case "templates", "list":
		return templateList(), nil
	case "add":
		return b.setupAdd(ctx, args[1:])
	}
	return help, fmt.Errorf("unknown setup command %q; use templates or add", args[0])
}

func templateList() string {
	ts, err := templates.All()
	if err != nil {
		return err.Error()
	}
	var sb strings.Builder
	sb.WriteString("Templates:")
	for _, t := range ts {
		fmt.Fprintf(&sb, "\n  %-20s %s", t.Name, t.Description)
		if len(t.Vars) > 0 {
			fmt.Fprintf(&sb, " (needs %s)", strings.Join(t.Vars, ", "))
		}
	}
	return sb.String()
}

const setupUsageTail = " add <template> [--global|--project] [--name <server>] [--path <dir>] [--force]"

func (b host) setupAdd(ctx context.Context, args []string) (string, error) {
	setupUsage := "usage: " + b.Surface().Cmd("setup") + setupUsageTail
	var tmpl, name, scope, dir string
	project, force := false, false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--global", "--project":
			if scope != "" && scope != a {
				return "", fmt.Errorf("--global and --project exclude each other; %s", setupUsage)
			}
			scope, project = a, a == "--project"
		case "--force":
			force = true
		case "--name":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return "", fmt.Errorf("--name requires a value; %s", setupUsage)
			}
			i++
			name = args[i]
		case "--path":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return "", fmt.Errorf("--path requires a directory; %s", setupUsage)
			}
			i++
			dir = args[i]
		default:
			if v, ok := strings.CutPrefix(a, "--path="); ok {
				if v == "" {
					return "", fmt.Errorf("--path requires a directory; %s", setupUsage)
				}
				dir = v
				continue
			}
			if a == "--" {
				return "", fmt.Errorf("setup add takes a template, not a command; to add a server that runs a command, use (in a terminal) mcp-bridge add NAME -- COMMAND [ARGS...]")
			}
			if strings.HasPrefix(a, "--") {
				return "", fmt.Errorf("unknown setup option %q; %s", a, setupUsage)
			}
			if tmpl != "" {
				return "", fmt.Errorf("one template at a time; %s", setupUsage)
			}
			tmpl = a
		}
	}
	if tmpl == "" {
		return templateList(), fmt.Errorf("%s", setupUsage)
	}
	t, ok := templates.Get(tmpl)
	if !ok {
		var names []string
		if ts, err := templates.All(); err == nil {
			for _, x := range ts {
				names = append(names, x.Name)
			}
		}
		return templateList(), fmt.Errorf("unknown template %q.%s Templates: %s", tmpl, textdist.Suggest(tmpl, names), strings.Join(names, ", "))
	}
	if name == "" {
		name = t.Name
	}
	// The look-alike check covers every file the bridge read; AddServer checks the
	// target file again under its lock.
	if err := config.CheckNewServerName(name, b.Names()); err != nil {
		return "", err
	}
	entry, err := t.Entry(dir)
	if err != nil {
		return "", err
	}
	path := config.GlobalPath(b.ZotHome())
	if project {
		if b.ProjectDir() == "" {
			return "", fmt.Errorf("--project needs the project directory, but none is known")
		}
		path = config.ProjectPath(b.ProjectDir())
	}
	wctx, cancel := b.CommandContext(ctx)
	defer cancel()
	replaced, err := config.AddServer(wctx, path, name, entry, force)
	if err != nil {
		return "", err
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s MCP server %q from template %q in %s.", verb, name, t.Name, path)
	var unset []string
	for _, v := range t.Vars {
		if _, ok := b.LookupEnv(v); !ok {
			unset = append(unset, v)
		}
	}
	if len(unset) > 0 {
		refs := make([]string, len(unset))
		for i, v := range unset {
			refs[i] = "${" + v + "}"
		}
		it := "it"
		if len(unset) > 1 {
			it = "them"
		}
		fmt.Fprintf(&sb, "\nNot set yet: %s. Set %s in the environment zot runs in (the config refers to %s; values are never written to the file).",
			strings.Join(unset, ", "), it, strings.Join(refs, ", "))
	}
	for _, n := range t.Notes {
		sb.WriteString("\n" + n)
	}
	fmt.Fprintf(&sb, "\n%s to load its tools.", CapFirst(b.Surface().Reload()))
	return sb.String(), nil
}

// filterLines shows the server's tool filters and the warnings about its entry (fields
// the bridge ignores or does not know), so nothing in the entry goes unexplained.
func filterLines(cfg *config.Config, c *config.Server) string {
	var sb strings.Builder
	for _, f := range []struct {
		name string
		list []string
	}{{"disabledTools", c.DisabledTools}, {"includeTools", c.IncludeTools}, {"excludeTools", c.ExcludeTools}} {
		if len(f.list) > 0 {
			fmt.Fprintf(&sb, "  %-11s %s\n", f.name+":", strings.Join(f.list, ", "))
		}
	}
	for _, p := range cfg.Problems {
		if p.Server == c.Name && p.File == c.Source && p.Warning() {
			fmt.Fprintf(&sb, "  warning:    %s: %s\n", p.Field, p.Message)
		}
	}
	return sb.String()
}
