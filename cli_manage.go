package main

import (
	"context"
	"encoding/json"
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

const addSynopsis = `add NAME [--global|--project] [--env K=V]... [--force] -- COMMAND [ARGS...]
       mcp-bridge add NAME --url URL [--transport http|sse] [--header 'K: V']... [--global|--project] [--force]`

func cmdAdd(args []string, stdout, stderr io.Writer) int {
	f := newFlags("add", addSynopsis, stderr)
	global := f.fs.Bool("global", false, "write the global file $ZOT_HOME/mcp.json (the default)")
	project := f.fs.Bool("project", false, "write <project>/.zot/mcp.json")
	force := f.fs.Bool("force", false, "replace an existing entry of that name")
	rawURL := f.fs.String("url", "", "URL of a remote (HTTP) server")
	transport := f.fs.String("transport", "", "remote transport: http (streamable HTTP) or sse; default: try http, then sse")
	var envs, headers multiFlag
	f.fs.Var(&envs, "env", "K=V environment entry for a command server (repeatable); V may be ${VAR}")
	f.fs.Var(&headers, "header", "'K: V' header for a remote server (repeatable); V may refer to ${VAR}")
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
		fmt.Fprintf(stderr, "mcp-bridge add: "+format+"\n", a...)
		fmt.Fprintf(stderr, "usage: mcp-bridge %s\n", addSynopsis)
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
	if *global && *project {
		return fail("--global and --project exclude each other")
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
		switch *transport {
		case "":
		case "http", "streamable-http":
			entry["type"] = "http"
		case "sse":
			entry["type"] = "sse"
		default:
			return fail("--transport must be http or sse, not %q", *transport)
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
		if *transport != "" && *transport != "stdio" {
			return fail("--transport %s needs --url; a command server talks over stdio", *transport)
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
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	path, scope := globalFile(b), config.ScopeGlobal
	if *project {
		path, scope = config.ProjectPath(f.cwd), config.ScopeProject
	}
	// The look-alike check covers every file the bridge read; AddServer checks the target
	// file again under its lock.
	if err := config.CheckNewServerName(name, b.ServerNames()); err != nil {
		fmt.Fprintln(stderr, "mcp-bridge add:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), editTimeout)
	defer cancel()
	replaced, err := config.AddServer(ctx, path, name, raw, *force)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-bridge add:", err)
		return 1
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	kind := "command"
	if *rawURL != "" {
		kind = "remote"
	}
	fmt.Fprintf(stdout, "%s %s MCP server %q in %s (%s).\n", verb, kind, name, path, scope)
	if literal := literalKeys(envs, "="); len(literal) > 0 {
		fmt.Fprintf(stdout, "The values of %s are written to the file as given; to keep a secret out of it, write --env %s='${%s}' and set the variable where zot runs.\n",
			strings.Join(literal, ", "), literal[0], literal[0])
	}
	fmt.Fprintf(stdout, "Check it: mcp-bridge get %s. Its tools are listed on first use or by mcp-bridge refresh --server %s; zot loads them when it starts (or run /reload-ext inside zot).\n", name, name)
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
	f := newFlags("remove", "remove NAME [--global|--project] [--cwd DIR]", stderr)
	global := f.fs.Bool("global", false, "remove it from the global file only")
	project := f.fs.Bool("project", false, "remove it from the project file only")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) != 1 || (*global && *project) {
		f.fs.Usage()
		return 2
	}
	name := pos[0]
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	var paths []string
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
		}
	}
	switch len(paths) {
	case 0:
		fmt.Fprintf(stderr, "mcp-bridge remove: no server %q in %s; servers: %s\n", name, scopeWords(*global, *project), orNone(b.ServerNames()))
		reportBrokenFor(b, stderr, name)
		return 1
	case 2:
		fmt.Fprintf(stderr, "mcp-bridge remove: %q is defined in both %s and %s; say which with --global or --project\n", name, paths[0], paths[1])
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
			cache = fmt.Sprintf("%d tools", s.Tools)
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
		fmt.Fprintf(stderr, "unknown server %q.%s Servers: %s\n", name, bridge.Suggest(name, b.ServerNames()), orNone(b.ServerNames()))
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
