package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
	mcpcmd "github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/words"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// commands maps CLI subcommands to their implementations.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"doctor":   cmdDoctor,
	"tools":    cmdTools,
	"search":   cmdSearch,
	"call":     cmdCall,
	"refresh":  cmdRefresh,
	"setup":    cmdSetup,
	"import":   cmdImport,
	"trust":    cmdTrust,
	"untrust":  cmdUntrust,
	"add":      cmdAdd,
	"add-json": cmdAddJSON,
	"remove":   cmdRemove,
	"list":     cmdList,
	"get":      cmdGet,
	"login":    cmdLogin,
	"logout":   cmdLogout,
	"serve":    cmdServe,
}

// exitFor maps flag parsing errors: --help is success.
func exitFor(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	f := newFlags("doctor", "doctor [--tools] [--json] [--cwd DIR]", stderr)
	asJSON := f.jsonFlag()
	toolsOnly := f.fs.Bool("tools", false, "list what the injection audit (a heuristic) finds in every cached tool's description, without starting servers")
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	// doctor lists broken files itself, so they are not reported twice. Notes that arrive
	// while servers start (a server announcing new tools) wait for the end of the list.
	var notesMu sync.Mutex
	var notes []string
	b := newCLIBridgeFor(f.cwd, stderr, extension.GenNew, func(_, msg string) {
		notesMu.Lock()
		defer notesMu.Unlock()
		if !slices.Contains(notes, msg) {
			notes = append(notes, msg)
		}
	})
	defer closeBridge(b)
	if *toolsOnly {
		return doctorTools(b, stdout, stderr, *asJSON)
	}
	rep := doctorReport{OK: true}
	cfg := b.Config()
	for _, file := range cfg.Files {
		rep.Files = append(rep.Files, doctorFile{Scope: file.Scope, Path: file.Path, Found: file.Found, Error: file.Err})
		rep.OK = rep.OK && file.Err == ""
	}
	rep.Exposure = exposureOf(b)
	for _, p := range cfg.Problems {
		// A warning (an ignored field, a likely typo) is shown but breaks nothing.
		rep.OK = rep.OK && p.Warning()
		if p.Server == "" && fileErrorOf(cfg.Files, p) {
			continue // already on the file's line
		}
		if p.Server != "" && !p.Warning() {
			continue // on the server's line, as its CONFIG ERROR
		}
		rep.Problems = append(rep.Problems, p.String())
	}
	out := stdout
	if *asJSON {
		out = io.Discard
	}
	printDoctorHead(out, rep)
	names := b.ServerNames()
	if len(names) == 0 && brokenFiles(b) != nil {
		fmt.Fprintln(out, "No MCP servers loaded: fix the broken file above to load its servers.")
	} else if len(names) == 0 {
		fmt.Fprintf(out, "No MCP servers configured. Add one with: mcp-bridge add NAME -- COMMAND [ARGS...], or mcp-bridge setup add TEMPLATE (see mcp-bridge setup templates)\n")
	} else {
		fmt.Fprintf(out, "Servers (%d):\n", len(names))
	}
	show := func(d doctorServer) {
		fmt.Fprintln(out, forTerminal(out, d.line())) // a failure carries the server's stderr
		if d.Skipped != "" {
			fmt.Fprintln(out, forTerminal(out, "    skipped: "+d.Skipped))
		}
		printFindings(out, d.Findings)
		rep.OK = rep.OK && (d.Status == "ok" || d.Status == "disabled")
		rep.Servers = append(rep.Servers, d)
	}
	var run []string
	wait := time.Duration(0)
	for _, n := range names {
		s, _ := b.Server(n)
		c := s.Config()
		switch {
		case s.NeedsApproval():
			show(doctorServer{Name: n, File: c.Source, Status: "needs approval", Error: bridge.RunsText(c) + mcpcmd.ReplacesText(c)})
		case c.Err != "":
			show(doctorServer{Name: n, File: c.Source, Status: "config error", Error: c.Err})
		case !c.Usable():
			show(doctorServer{Name: n, File: c.Source, Status: "disabled"})
		default:
			run = append(run, n)
			wait = max(wait, c.ConnectTimeout+time.Second)
		}
	}
	// The servers are started and listed as refresh does, so the tools doctor counts are
	// the tools the cache keeps (search finds them afterwards); each server's line is
	// printed as soon as it is known, so a slow one shows at once.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	refreshed := b.RefreshEach(ctx, run, func(r bridge.RefreshResult) {
		s, _ := b.Server(r.Name)
		d := doctorServer{Name: r.Name, File: s.Config().Source, Status: "ok", ElapsedMS: r.Elapsed.Milliseconds()}
		if r.Err != nil {
			d.Status, d.Error = "failed", lifecycle.UserText(r.Err)
		} else {
			d.Tools, d.Transport = r.Tools, string(s.Status().Transport)
			d.Findings = findingStrings(b.LiveToolFindings(r.Name))
			d.Skipped = bridge.SkippedText(s.SkippedTools())
		}
		show(d)
	})
	if msg := refreshed.SaveText(); msg != "" {
		rep.OK = false
		rep.Problems = append(rep.Problems, msg)
		fmt.Fprintln(out, "Tool cache: "+msg)
	}
	if use := b.AlwaysLoadUse(); use.Tools > 0 || len(use.Over) > 0 {
		rep.AlwaysLoad = &use
		fmt.Fprintln(out, alwaysLoadLine(use))
	}
	notesMu.Lock()
	for _, n := range notes {
		fmt.Fprintln(out, "Note: "+n)
	}
	notesMu.Unlock()
	sort.Slice(rep.Servers, func(i, j int) bool { return rep.Servers[i].Name < rep.Servers[j].Name })
	if rep.OK {
		fmt.Fprintln(out, "All good.")
	} else {
		fmt.Fprintln(out, "Something needs attention (see above).")
	}
	if *asJSON {
		if code := writeJSON(stdout, stderr, rep); code != 0 {
			return code
		}
	}
	return boolExit(!rep.OK)
}

func boolExit(bad bool) int {
	if bad {
		return 1
	}
	return 0
}

func closeBridge(b *bridge.Bridge) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	b.Close(ctx)
}

func cmdTools(args []string, stdout, stderr io.Writer) int {
	f := newFlags("tools", "tools [--server S] [--json] [--cwd DIR]", stderr)
	server := f.fs.String("server", "", "only this server")
	asJSON := f.jsonFlag()
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	if *server != "" {
		if _, ok := b.Server(*server); !ok {
			fmt.Fprintf(stderr, "unknown server %q; servers: %s\n", *server, strings.Join(b.ServerNames(), ", "))
			return 1
		}
	}
	if *server != "" {
		switch s, _ := b.Server(*server); {
		case !s.Config().Usable():
			// Its tools cannot be listed until the config is fixed: say why, not "refresh".
			fmt.Fprintln(stderr, s.DisabledErr().Msg)
			return 1
		case s.NeedsApproval():
			// refresh skips it too: approving it comes first.
			fmt.Fprintf(stderr, "%s is a project server that needs your approval before its tools are listed or shown: mcp-bridge trust %s\n", *server, *server)
			return 1
		}
	}
	tools := b.Tools(*server)
	if *asJSON {
		type tool struct {
			Name        string `json:"name"`
			Server      string `json:"server"`
			Tool        string `json:"tool"`
			Description string `json:"description"`
			// The schema the model sees: what a script needs to build the arguments.
			InputSchema json.RawMessage `json:"inputSchema,omitempty"`
		}
		list := make([]tool, 0, len(tools))
		for _, t := range tools {
			ct := t.CacheTool()
			list = append(list, tool{t.Name, t.Server, t.Tool.Name, ct.Description, ct.InputSchema})
		}
		return writeJSON(stdout, stderr, list)
	}
	for _, t := range tools {
		fmt.Fprintf(stdout, "%s\t%s\n", t.Name, textcut.FirstLine(t.CacheTool().Description, 100))
	}
	if len(tools) == 0 && *server != "" {
		fmt.Fprintf(stderr, "no cached tools of %s; list them with: mcp-bridge refresh --server %s\n", *server, *server)
	} else if len(tools) == 0 {
		fmt.Fprintln(stderr, "no cached tools; list them with: mcp-bridge refresh")
	}
	return 0
}

func cmdSearch(args []string, stdout, stderr io.Writer) int {
	f := newFlags("search", "search QUERY [--limit N] [--zot released|newer] [--json] [--cwd DIR]", stderr)
	limit := f.fs.Int("limit", 8, "how many results (1-20)")
	host := f.fs.String("zot", "released", "answer as the model sees it on the released zot (v0.1.62: search + mcp__call_tool) or on a newer zot (deferred tools)")
	asJSON := f.jsonFlag()
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) == 0 {
		f.fs.Usage()
		return 2
	}
	gen := extension.GenLegacy
	switch *host {
	case "released":
	case "newer":
		gen = extension.GenNew
	default:
		fmt.Fprintf(stderr, "mcp-bridge search: --zot must be released or newer, not %q (see mcp-bridge search --help)\n", *host)
		return 2
	}
	b := loadBridgeFor(f.cwd, stderr, gen)
	defer closeBridge(b)
	if *asJSON {
		if *limit < 1 || *limit > 20 {
			fmt.Fprintf(stderr, "--limit must be between 1 and 20 (got %d)\n", *limit)
			return 2
		}
		hits, why := b.SearchTools(strings.Join(pos, " "), *limit)
		if why != "" {
			fmt.Fprintln(stderr, why)
		}
		if hits == nil {
			hits = []bridge.SearchHit{}
		}
		return writeJSON(stdout, stderr, hits)
	}
	raw, _ := json.Marshal(map[string]any{"query": strings.Join(pos, " "), "limit": *limit})
	return printResult(b.CallTool(context.Background(), extension.ToolCall{ID: "cli", Name: bridge.SearchToolName, Args: raw}), stdout)
}

func cmdCall(args []string, stdout, stderr io.Writer) int {
	f := newFlags("call", "call SERVER TOOL ['JSON arguments'] | call mcp__SERVER__TOOL ['JSON arguments'] [--accept-defaults] [--no-wait] [--login] [--cwd DIR]", stderr)
	acceptDefaults := f.fs.Bool("accept-defaults", false, "answer a server's form questions with their defaults without asking (for scripts)")
	noWait := f.fs.Bool("no-wait", false, "when the server runs the call as a task, print the task's id and exit instead of waiting for its result")
	login := f.fs.Bool("login", false, "when the server asks for an OAuth login or more permissions, log in (opening the browser) and call again, as on a terminal (for scripts)")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) < 1 || len(pos) > 3 {
		f.fs.Usage()
		return 2
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	if *acceptDefaults {
		b.SetElicitor(newTermElicitor(os.Stdin, isInteractive(os.Stdin), stderr, true))
	}
	var server, tool string
	rest := pos[1:]
	if strings.HasPrefix(pos[0], "mcp__") && len(pos) <= 2 {
		s, t, ok := b.SplitToolName(pos[0])
		if !ok {
			fmt.Fprintf(stderr, "%s names no configured server; servers: %s\n", pos[0], orNone(b.ServerNames()))
			reportBrokenFor(b, stderr, "")
			return 1
		}
		server, tool = s, t
	} else {
		if len(pos) < 2 {
			f.fs.Usage()
			return 2
		}
		server, tool, rest = pos[0], pos[1], pos[2:]
	}
	argJSON := json.RawMessage("{}")
	if len(rest) == 1 {
		argJSON = json.RawMessage(rest[0])
	}
	srv, ok := b.Server(server)
	if !ok && brokenFiles(b) != nil {
		// The server may be defined in the broken file: say so rather than only "unknown".
		code := printResult(b.CallByName(context.Background(), server, tool, argJSON), stdout)
		reportBrokenFor(b, stderr, server)
		return max(code, 1)
	}
	c := &taskCall{b: b, clock: clock.System{}, noWait: *noWait, status: isTerminalWriter(stderr), stdout: stdout, stderr: stderr}
	if ok {
		c.clock = srv.Clock()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if ok && (*login || isInteractive(os.Stdin)) {
		c.relogin = func(r extension.ToolResult) bool { return r.IsError && srv.Status().NeedsLogin }
	}
	return callLoggingIn(ctx, c, server, tool, argJSON)
}

// callLoggingIn runs the call; when it needs a login (c.relogin), it logs in, as
// `mcp-bridge login` does, and calls again, at most maxRelogins times.
func callLoggingIn(ctx context.Context, c *taskCall, server, tool string, args json.RawMessage) int {
	for logins := 0; ; logins++ {
		code := c.run(ctx, server, tool, args)
		if code != exitRelogin {
			return code
		}
		if logins == maxRelogins {
			fmt.Fprintf(c.stderr, "MCP server %q still asks for a login after %d logins; not logging in again.\n", server, maxRelogins)
			return printResult(c.held, c.stdout)
		}
		printResult(c.held, c.stderr)
		if !loginAgain(ctx, c.b, server, logins+1, c.stderr) {
			printResult(c.held, c.stdout)
			return 1
		}
	}
}

// printResult prints a tool result to stdout: escaped (safetext.Escape) when stdout is a
// terminal, since a server's text may hold control sequences (clear the screen, write the
// clipboard, links), and as the server sent it to a pipe or a file.
func printResult(r extension.ToolResult, stdout io.Writer) int {
	return writeResult(r, stdout, isTerminalWriter(stdout))
}

// writeResult is printResult, escaping the server's text when term is set.
func writeResult(r extension.ToolResult, stdout io.Writer, term bool) int {
	shown := func(s string) string { return s }
	if term {
		shown = safetext.Escape
	}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			fmt.Fprintln(stdout, shown(c.Text))
		default:
			fmt.Fprintf(stdout, "[%s %s, %d bytes base64]\n", shown(c.Type), shown(c.MimeType), len(c.Data))
		}
	}
	if len(r.StructuredContent) > 0 {
		fmt.Fprintf(stdout, "structured: %s\n", shown(string(r.StructuredContent)))
	}
	if len(r.ActivateTools) > 0 {
		fmt.Fprintf(stdout, "activates: %s\n", strings.Join(r.ActivateTools, ", "))
	}
	return boolExit(r.IsError)
}

func cmdRefresh(args []string, stdout, stderr io.Writer) int {
	f := newFlags("refresh", "refresh [--server S] [--login] [--cwd DIR]", stderr)
	server := f.fs.String("server", "", "only this server")
	login := f.fs.Bool("login", false, "when a server asks for an OAuth login (or another one: a new authorization server, more permissions), log in (opening the browser) and list it again")
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	broken := brokenFiles(b) != nil
	var names, skipped, approval []string
	for _, n := range b.ServerNames() {
		if *server != "" && *server != n {
			continue
		}
		s, _ := b.Server(n)
		if s.Config().Usable() && s.NeedsApproval() {
			fmt.Fprintf(stdout, "Skipped %s: a project server that needs your approval (mcp-bridge trust %s)\n", n, n)
			approval = append(approval, n)
			continue
		}
		if s.Config().Usable() {
			names = append(names, n)
		} else {
			skipped = append(skipped, n)
		}
	}
	if *server != "" && len(names) == 0 {
		if len(approval) > 0 {
			return 1
		}
		if len(skipped) > 0 {
			s, _ := b.Server(*server)
			fmt.Fprintln(stderr, s.DisabledErr().Msg)
		} else {
			fmt.Fprintf(stderr, "server %q is not configured; servers: %s\n", *server, orNone(b.ServerNames()))
			reportBrokenFor(b, stderr, *server)
		}
		return 1
	}
	if len(names) == 0 {
		if broken {
			fmt.Fprintln(stderr, "Nothing refreshed: the servers of the broken file above are not loaded.")
			return 1
		}
		if len(approval) > 0 {
			return 0
		}
		fmt.Fprintln(stdout, "No usable MCP servers configured; nothing to refresh. Add one with: mcp-bridge add NAME -- COMMAND [ARGS...]")
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// One line per server as it finishes, so a slow server shows at once.
	failed := map[string]bool{}
	each := func(r bridge.RefreshResult) {
		failed[r.Name] = r.Err != nil
		if r.Err != nil {
			fmt.Fprintf(stdout, "  %-20s FAILED after %s: %s\n", r.Name, r.Elapsed.Round(time.Millisecond), forTerminal(stdout, lifecycle.UserText(r.Err)))
			return
		}
		fmt.Fprintf(stdout, "  %-20s ok: %s in %s\n", r.Name, words.Count(r.Tools, "tool"), r.Elapsed.Round(time.Millisecond))
	}
	rep := b.RefreshEach(ctx, names, each)
	if *login {
		rep = refreshLoggingIn(ctx, b, names, failed, rep, each, stderr)
	}
	if rep.CacheErr != nil {
		// Listing worked; only saving failed: say so rather than count it as a server.
		fmt.Fprintf(stdout, "Listed %d of %s, but %s.\n", rep.Listed, words.Count(len(names), "server"), rep.SaveText())
	} else {
		fmt.Fprintf(stdout, "Refreshed %d of %s; changed: %s\n", rep.Listed, words.Count(len(names), "server"), orNone(rep.Changed))
	}
	for _, text := range rep.ToolChangeTexts(mcpcmd.SurfaceCLI) {
		fmt.Fprintln(stdout, text)
	}
	if len(skipped) > 0 && *server == "" {
		fmt.Fprintf(stdout, "Skipped (disabled or config error): %s\n", strings.Join(skipped, ", "))
	}
	if len(rep.Changed) > 0 {
		fmt.Fprintln(stdout, "zot loads changed tools when it starts: restart zot or run /reload-ext inside zot.")
	}
	if rep.Flagged != "" {
		fmt.Fprintln(stdout, rep.Flagged)
	}
	if broken && *server == "" {
		fmt.Fprintln(stderr, "Not refreshed: the servers of the broken file above (fix it, then refresh again).")
	}
	return boolExit(len(rep.Failed) > 0 || rep.CacheErr != nil || (broken && *server == ""))
}

// refreshLoggingIn logs in to each server of names whose listing failed because it needs
// a login (failed, kept up to date by each), and lists it again, at most maxRelogins times
// per server; the report is rep with the new listings' in place of those failures.
func refreshLoggingIn(ctx context.Context, b *bridge.Bridge, names []string, failed map[string]bool, rep bridge.RefreshReport,
	each func(bridge.RefreshResult), stderr io.Writer) bridge.RefreshReport {
	retried := false
	for logins := 1; logins <= maxRelogins; logins++ {
		var again []string
		for _, n := range names {
			if s, ok := b.Server(n); ok && failed[n] && s.Status().NeedsLogin && loginAgain(ctx, b, n, logins, stderr) {
				again = append(again, n)
			}
		}
		if len(again) == 0 {
			break
		}
		retried = true
		more := b.RefreshEach(ctx, again, each)
		rep.Listed += more.Listed
		rep.ListedNames = append(rep.ListedNames, more.ListedNames...)
		rep.Changed = append(rep.Changed, more.Changed...)
		rep.Unsaved = append(rep.Unsaved, more.Unsaved...)
		rep.ToolChanges = append(rep.ToolChanges, more.ToolChanges...)
		if more.CacheErr != nil {
			rep.CacheErr = more.CacheErr
		}
		if more.Flagged != "" {
			rep.Flagged = strings.TrimSpace(rep.Flagged + "\n" + more.Flagged)
		}
	}
	if !retried {
		return rep
	}
	// The failures are the servers' that still fail (their words were printed as they
	// failed).
	sort.Strings(rep.ListedNames)
	rep.Failed = nil
	for _, n := range names {
		if failed[n] {
			rep.Failed = append(rep.Failed, n)
		}
	}
	return rep
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func cmdSetup(args []string, stdout, stderr io.Writer) int {
	f := newFlags("setup", "setup templates | setup add TEMPLATE [--global|--project] [--name NAME] [--path DIR] [--force] [--cwd DIR]", stderr)
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "-help" {
			f.fs.Usage()
			return 0
		}
	}
	// --cwd is taken out here, in every form the flag package accepts elsewhere; the
	// rest goes to the /mcp setup command.
	wd := f.cwd
	for i := 0; i < len(args); i++ {
		if v, ok := strings.CutPrefix(args[i], "--cwd="); ok || strings.HasPrefix(args[i], "-cwd=") {
			if !ok {
				v = strings.TrimPrefix(args[i], "-cwd=")
			}
			wd = v
			args = append(args[:i:i], args[i+1:]...)
			break
		}
		if (args[i] == "--cwd" || args[i] == "-cwd") && i+1 < len(args) {
			wd = args[i+1]
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	b := loadBridge(wd, stderr)
	defer closeBridge(b)
	out, err := b.CommandArgs(context.Background(), append([]string{"setup"}, args...))
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

// doctorReport is what doctor found; --json prints it as is.
type doctorReport struct {
	Files    []doctorFile   `json:"files"`
	Exposure exposure       `json:"exposure"`
	Problems []string       `json:"problems"`
	Servers  []doctorServer `json:"servers"`
	// AlwaysLoad is what the servers' "alwaysLoad" makes visible from the first request
	// (nil when no server has any).
	AlwaysLoad *bridge.AlwaysLoadUse `json:"alwaysLoad,omitempty"`
	OK         bool                  `json:"ok"`
}

// alwaysLoadLine is doctor's line on alwaysLoad: what it adds to every model request
// against its budget, and a warning naming the tools that stay deferred over it. It does
// not fail doctor: those tools are still found by search.
func alwaysLoadLine(use bridge.AlwaysLoadUse) string {
	line := fmt.Sprintf("alwaysLoad: %s visible from the first request, %.1f KiB of registrations of the %d KiB budget (on zot with capabilities; every model request carries them)",
		words.Count(use.Tools, "tool"), float64(use.Bytes)/1024, use.Budget>>10)
	if len(use.Over) == 0 {
		return line
	}
	names := use.Over
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(use.Over)-5)
	}
	verb := "do not fit and stay"
	if len(use.Over) == 1 {
		verb = "does not fit and stays"
	}
	return line + fmt.Sprintf("\n  WARNING: %s named in alwaysLoad %s behind mcp__search_tools: %s%s; name fewer tools in alwaysLoad",
		words.Count(len(use.Over), "more tool"), verb, strings.Join(names, ", "), more)
}

type doctorFile struct {
	Scope string `json:"scope"`
	Path  string `json:"path"`
	Found bool   `json:"found"`
	Error string `json:"error,omitempty"`
}

// exposure is the tool exposure mode on each kind of zot: the bridge decides per host, so
// doctor (which runs without one) names both rather than guessing.
type exposure struct {
	Setting string     `json:"setting"`          // the toolExposure value ("auto" by default)
	Source  string     `json:"source,omitempty"` // the file that set it
	Legacy  modeOnHost `json:"releasedZot"`      // zot v0.1.62 and others without capabilities
	Newer   modeOnHost `json:"newerZot"`         // zot that announces capabilities
}

type modeOnHost struct {
	Mode string `json:"mode"`
	Why  string `json:"why"`
}

func exposureOf(b *bridge.Bridge) exposure {
	cfg := b.Config()
	e := exposure{Setting: cfg.ToolExposure, Source: cfg.ToolExposureSource}
	if e.Setting == "" {
		e.Setting = "auto"
	}
	m, why := b.ModeOn(extension.GenLegacy)
	e.Legacy = modeOnHost{string(m), why}
	m, why = b.ModeOn(extension.GenNew)
	e.Newer = modeOnHost{string(m), why}
	return e
}

func printDoctorHead(out io.Writer, rep doctorReport) {
	fmt.Fprintln(out, "Config files:")
	for _, f := range rep.Files {
		state := "not found (fine)"
		switch {
		case f.Error != "":
			state = "ERROR: " + f.Error
		case f.Found:
			state = "read"
		}
		fmt.Fprintf(out, "  %-8s %s — %s\n", f.Scope, f.Path, state)
	}
	e := rep.Exposure
	if e.Legacy.Mode == e.Newer.Mode {
		fmt.Fprintf(out, "Tool exposure: %s on every zot (%s)\n", e.Newer.Mode, e.Newer.Why)
	} else {
		fmt.Fprintf(out, "Tool exposure (toolExposure %q):\n", e.Setting)
		fmt.Fprintf(out, "  released zot (v0.1.62, no capabilities): %s — search + mcp__call_tool, since it may show deferred tools eagerly\n", e.Legacy.Mode)
		fmt.Fprintf(out, "  newer zot (announces capabilities):      %s — every tool hidden until a search activates it\n", e.Newer.Mode)
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintln(out, "Problems:")
		for _, p := range rep.Problems {
			fmt.Fprintln(out, "  "+p)
		}
	}
}

// doctorServer is one server's check.
type doctorServer struct {
	Name      string `json:"name"`
	File      string `json:"file"`
	Status    string `json:"status"` // ok, failed, config error, disabled, needs approval
	Tools     int    `json:"tools"`
	Transport string `json:"transport,omitempty"`
	ElapsedMS int64  `json:"elapsedMs"`
	Error     string `json:"error,omitempty"`
	// Findings are what the injection audit found in its tools' descriptions.
	Findings []string `json:"findings,omitempty"`
	// Skipped names the listed tools the bridge cannot offer, each with why.
	Skipped string `json:"skipped,omitempty"`
}

func (d doctorServer) line() string {
	elapsed := (time.Duration(d.ElapsedMS) * time.Millisecond).String()
	switch d.Status {
	case "ok":
		return fmt.Sprintf("  %-20s ok: %s in %s via %s [%s]", d.Name, words.Count(d.Tools, "tool"), elapsed, d.Transport, d.File)
	case "failed":
		return fmt.Sprintf("  %-20s FAILED after %s: %s [%s]", d.Name, elapsed, d.Error, d.File)
	case "config error":
		return fmt.Sprintf("  %-20s CONFIG ERROR: %s [%s]", d.Name, d.Error, d.File)
	case "needs approval":
		return fmt.Sprintf("  %-20s NEEDS APPROVAL: %s [%s]; approve: mcp-bridge trust %s", d.Name, d.Error, d.File, d.Name)
	}
	return fmt.Sprintf("  %-20s disabled [%s]", d.Name, d.File)
}

// forTerminal is a server's text s as it may be printed to w: escaped when w is a
// terminal (see printResult), as it is otherwise.
func forTerminal(w io.Writer, s string) string {
	if isTerminalWriter(w) {
		return safetext.Escape(s)
	}
	return s
}

// writeJSON prints v as indented JSON (the --json output of every command).
func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

// fileErrorOf says whether a file-level problem is the one its file's status reports.
func fileErrorOf(files []config.FileStatus, p config.Problem) bool {
	for _, f := range files {
		if f.Path == p.File && f.Err != "" && (f.Err == p.Message || f.Err == p.Field+": "+p.Message) {
			return true
		}
	}
	return false
}
