package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
	mcpcmd "github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
	"github.com/zot-mcp/mcp-bridge/internal/words"
)

// add, remove, list and get: managing servers from the terminal the way `claude mcp` and
// `codex mcp` do, writing the same comment-keeping JSONC as `setup add`.

// editTimeout bounds waiting for a config file's lock (another mcp-bridge editing it).
const editTimeout = 30 * time.Second

// multiFlag collects a flag given several times (--env, --header).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// headerKey is an HTTP header field name (RFC 9110 token).
var headerKey = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

const addSynopsis = `add NAME [--global|--project|-s user|project] [-e|--env K=V]... [--force] -- COMMAND [ARGS...]
       mcp-bridge add NAME --url URL [-t|--transport http|sse] [-H|--header 'K: V']... [--global|--project|-s user|project] [--force]`

// scopeFlags are the ways to say which file a command writes: ours (--global, --project)
// and Claude Code's (-s/--scope user|project).
type scopeFlags struct {
	global, project *bool
	scope           string
}

func addScopeFlags(f *cliFlags, verb string) *scopeFlags {
	s := &scopeFlags{
		global:  f.fs.Bool("global", false, verb+" the global file $ZOT_HOME/mcp.json (the default)"),
		project: f.fs.Bool("project", false, verb+" <project>/.zot/mcp.json"),
	}
	for _, n := range []string{"scope", "s"} {
		f.fs.StringVar(&s.scope, n, "", "user (the global file) or project (<project>/.zot/mcp.json), as claude mcp -s")
	}
	return s
}

// resolve folds the three spellings into our two flags, refusing ones that disagree.
func (s *scopeFlags) resolve() (global, project bool, err error) {
	global, project = *s.global, *s.project
	switch s.scope {
	case "":
	case "user", "global":
		global = true
	case "project":
		project = true
	case "local":
		return false, false, errors.New("--scope local (Claude Code's private per-project scope) has no counterpart here; use --scope project (<project>/.zot/mcp.json) or --scope user")
	default:
		return false, false, fmt.Errorf("--scope must be user or project, not %q", s.scope)
	}
	if global && project {
		return false, false, errors.New("the global file and the project file exclude each other; give one of --global, --project, --scope")
	}
	return global, project, nil
}

func cmdAdd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("add", addSynopsis, stderr)
	scope := addScopeFlags(f, "write")
	force := f.fs.Bool("force", false, "replace an existing entry of that name")
	rawURL := f.fs.String("url", "", "URL of a remote (HTTP) server")
	var transport string
	for _, n := range []string{"transport", "t"} {
		f.fs.StringVar(&transport, n, "", "remote transport: http (streamable HTTP) or sse; default: try http, then sse")
	}
	var envs, headers multiFlag
	for _, n := range []string{"env", "e"} {
		f.fs.Var(&envs, n, "K=V environment entry for a command server (repeatable); V may be ${VAR}")
	}
	for _, n := range []string{"header", "H"} {
		f.fs.Var(&headers, n, "'K: V' header for a remote server (repeatable); V may refer to ${VAR}")
	}
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-bridge add: "+format+" (see mcp-bridge add --help)\n", a...)
		return 2
	}
	if len(pos) == 0 {
		return fail("the server NAME is missing")
	}
	name := pos[0]
	if len(pos) > 1 {
		// As claude mcp add does, a command may follow the name without "--" when it
		// has no flags of its own.
		if len(command) > 0 {
			return fail("unexpected %q before --; put the command and its arguments after --", pos[1])
		}
		command = pos[1:]
	}
	if *rawURL == "" && len(command) == 1 && (strings.HasPrefix(command[0], "https://") || strings.HasPrefix(command[0], "http://")) {
		// claude mcp add --transport http NAME URL: the URL as the only positional.
		*rawURL, command = command[0], nil
	}
	if err := config.CheckServerName(name); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge add: %v\n", err)
		return 2
	}
	_, project, err := scope.resolve()
	if err != nil {
		return fail("%v", err)
	}
	entry := map[string]any{}
	switch {
	case *rawURL != "" && len(command) > 0:
		return fail("give either --url (a remote server) or a command after -- (a local one), not both")
	case *rawURL != "":
		if len(envs) > 0 {
			return fail("--env is for command servers; a remote server takes --header")
		}
		if !strings.Contains(*rawURL, "${") {
			u, err := url.Parse(*rawURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("--url must be an http:// or https:// URL with a host")
			}
		}
		entry["url"] = *rawURL
		switch transport {
		case "":
		case "http", "streamable-http":
			entry["type"] = "http"
		case "sse":
			entry["type"] = "sse"
		default:
			return fail("--transport must be http or sse, not %q", transport)
		}
		if len(headers) > 0 {
			hm := map[string]string{}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				k = strings.TrimSpace(k)
				if !ok || !headerKey.MatchString(k) {
					return fail("--header must look like 'Name: value' (got a value without a valid name)")
				}
				hm[k] = strings.TrimSpace(v)
			}
			entry["headers"] = hm
		}
	case len(command) > 0:
		if transport != "" && transport != "stdio" {
			return fail("--transport %s needs --url; a command server talks over stdio", transport)
		}
		if len(headers) > 0 {
			return fail("--header is for remote servers (--url); a command server takes --env")
		}
		entry["command"] = command[0]
		if len(command) > 1 {
			entry["args"] = command[1:]
		}
		if len(envs) > 0 {
			em := map[string]string{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || !envKey.MatchString(k) {
					return fail("--env must look like NAME=value with NAME made of letters, digits and _")
				}
				em[k] = v
			}
			entry["env"] = em
		}
	default:
		return fail("say what to run: -- COMMAND [ARGS...] for a local server, or --url URL for a remote one")
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	kind := "command"
	if *rawURL != "" {
		kind = "remote"
	}
	if code := writeEntry(f, "add", name, raw, kind, project, *force, stdout, stderr); code != 0 {
		return code
	}
	if literal := literalKeys(envs, "="); len(literal) > 0 {
		fmt.Fprintf(stdout, "The values of %s are written to the file as given; to keep a secret out of it, write --env %s='${%s}' and set the variable where zot runs.\n",
			strings.Join(literal, ", "), literal[0], literal[0])
	}
	fmt.Fprintf(stdout, "Check it: mcp-bridge get %s. Its tools are listed on first use or by mcp-bridge refresh --server %s; zot loads them when it starts (or run /reload-ext inside zot).\n", name, name)
	return 0
}

// writeEntry writes one server entry into the global or the project file and says where.
func writeEntry(f *cliFlags, cmd, name string, raw json.RawMessage, kind string, project, force bool, stdout, stderr io.Writer) int {
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	path, scope := globalFile(b), config.ScopeGlobal
	if project {
		path, scope = config.ProjectPath(f.cwd), config.ScopeProject
	}
	// The look-alike check covers every file the bridge read; AddServer checks the target
	// file again under its lock.
	if err := config.CheckNewServerName(name, b.ServerNames()); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge %s: %v\n", cmd, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), editTimeout)
	defer cancel()
	replaced, err := config.AddServer(ctx, path, name, raw, force)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge %s: %v\n", cmd, err)
		return 1
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(stdout, "%s %s MCP server %q in %s (%s).\n", verb, kind, name, path, scope)
	return 0
}

const addJSONSynopsis = `add-json NAME '{"command":"…","args":[…]}' [--global|--project|-s user|project] [--force]`

// cmdAddJSON is claude mcp add-json: the entry as the JSON a config file holds, checked
// as Load reads it before it is written.
func cmdAddJSON(args []string, stdout, stderr io.Writer) int {
	f := newFlags("add-json", addJSONSynopsis, stderr)
	scope := addScopeFlags(f, "write")
	force := f.fs.Bool("force", false, "replace an existing entry of that name")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-bridge add-json: "+format+" (see mcp-bridge add-json --help)\n", a...)
		return 2
	}
	if len(pos) != 2 {
		return fail("give the server NAME and its entry as one JSON argument (quote it)")
	}
	name, raw := pos[0], json.RawMessage(pos[1])
	if err := config.CheckServerName(name); err != nil {
		return fail("%v", err)
	}
	_, project, err := scope.resolve()
	if err != nil {
		return fail("%v", err)
	}
	if !json.Valid(raw) {
		return fail("the entry is not valid JSON; quote it whole, e.g. '{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\"]}'")
	}
	warnings, err := config.CheckEntry(name, raw)
	if err != nil {
		return fail("nothing was written: %v", err)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "mcp-bridge add-json: warning: %s\n", w)
	}
	var kind struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(raw, &kind)
	what := "command"
	if kind.URL != "" {
		what = "remote"
	}
	if code := writeEntry(f, "add-json", name, raw, what, project, *force, stdout, stderr); code != 0 {
		return code
	}
	fmt.Fprintf(stdout, "Check it: mcp-bridge get %s.\n", name)
	return 0
}

// literalKeys names the K=V entries whose value is literal text rather than a ${VAR}.
func literalKeys(kvs []string, sep string) []string {
	var out []string
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, sep)
		if v != "" && !strings.Contains(v, "${") {
			out = append(out, strings.TrimSpace(k))
		}
	}
	return out
}

// globalFile is the global mcp.json the bridge read (under ZOT_HOME as zot computes it).
func globalFile(b *bridge.Bridge) string {
	for _, f := range b.Config().Files {
		if f.Scope == config.ScopeGlobal {
			return f.Path
		}
	}
	return ""
}

func cmdRemove(args []string, stdout, stderr io.Writer) int {
	f := newFlags("remove", "remove NAME [--global|--project|-s user|project] [--cwd DIR]", stderr)
	scope := addScopeFlags(f, "remove it from")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	g, p, err := scope.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge remove: %v (see mcp-bridge remove --help)\n", err)
		return 2
	}
	global, project := &g, &p
	if len(pos) != 1 {
		f.fs.Usage()
		return 2
	}
	name := pos[0]
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	var paths []string
	globals := 0 // of paths
	for _, file := range b.Config().Files {
		if (*global && file.Scope != config.ScopeGlobal) || (*project && file.Scope != config.ScopeProject) {
			continue
		}
		if file.Err != "" && !*global && !*project {
			continue // reported above; its entries cannot be told apart
		}
		has, err := config.FileHasServer(file.Path, name)
		if err != nil {
			fmt.Fprintln(stderr, "mcp-bridge remove:", err)
			return 1
		}
		if has {
			paths = append(paths, file.Path)
			if file.Scope == config.ScopeGlobal {
				globals++
			}
		}
	}
	switch {
	case len(paths) == 0:
		fmt.Fprintf(stderr, "mcp-bridge remove: no server %q in %s; servers: %s\n", name, scopeWords(*global, *project), orNone(b.ServerNames()))
		reportBrokenFor(b, stderr, name)
		return 1
	case len(paths) > 1:
		fmt.Fprintf(stderr, "mcp-bridge remove: %q is defined in %s; %s\n", name, listWords(paths), whichFile(globals, len(paths)-globals))
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), editTimeout)
	defer cancel()
	if _, err := config.RemoveServer(ctx, paths[0], name); err != nil {
		fmt.Fprintln(stderr, "mcp-bridge remove:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Removed MCP server %q from %s. zot drops its tools when it starts (or run /reload-ext inside zot).\n", name, paths[0])
	return 0
}

// whichFile says how to remove a name that several files define (globals of them the
// global file, projects project files): by the flag that chooses one file, and by hand
// where no flag does (--project cannot tell two project files apart).
func whichFile(globals, projects int) string {
	switch {
	case globals == 1 && projects == 1:
		return "say which with --global or --project"
	case globals == 1:
		return "remove the global one with --global; the project files' entries --project cannot tell apart: delete the one you mean by hand"
	}
	return "--project cannot tell the project files apart: delete the entry you mean by hand"
}

// listWords joins items as words: "a", "a and b", "a, b and c".
func listWords(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func scopeWords(global, project bool) string {
	switch {
	case global:
		return "the global file"
	case project:
		return "the project file"
	}
	return "the global or project file"
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	f := newFlags("list", "list [--json] [--cwd DIR]", stderr)
	asJSON := f.jsonFlag()
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	infos := mcpcmd.ServerInfos(b.Commands())
	code := boolExit(brokenFiles(b) != nil)
	if *asJSON {
		return max(writeJSON(stdout, stderr, infos), code)
	}
	if len(infos) == 0 && code != 0 {
		fmt.Fprintln(stdout, "No MCP servers loaded: fix the broken file above to load its servers.")
		return code
	}
	if len(infos) == 0 {
		fmt.Fprintln(stdout, "No MCP servers configured. Add one: mcp-bridge add NAME -- COMMAND [ARGS...] (or --url URL)")
		return code
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tTRANSPORT\tSTATE\tCACHE\tFILE")
	for _, s := range infos {
		tr, cache := s.Transport, s.Cache
		if tr == "" {
			tr = "-"
		}
		if cache == mcpcmd.CacheFresh {
			cache = words.Count(s.Tools, "tool")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Scope, tr, s.State, cache, s.File)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return code
}

func cmdGet(args []string, stdout, stderr io.Writer) int {
	f := newFlags("get", "get NAME [--json] [--cwd DIR]", stderr)
	asJSON := f.jsonFlag()
	name, code, ok := f.parseName(args)
	if !ok {
		return code
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	info, ok := mcpcmd.Info(b.Commands(), name)
	if !ok {
		fmt.Fprintf(stderr, "unknown server %q.%s Servers: %s\n", name, textdist.Suggest(name, b.ServerNames()), orNone(b.ServerNames()))
		reportBrokenFor(b, stderr, name)
		return 1
	}
	if *asJSON {
		return writeJSON(stdout, stderr, info)
	}
	text, _ := mcpcmd.Detail(b.Commands(), name)
	fmt.Fprintln(stdout, text)
	return 0
}
