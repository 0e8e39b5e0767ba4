package main

import (
	"fmt"
	"strings"
)

// A life is a path through the program told step by step; each step names the package
// that owns it and the functions it passes through ("PKG.Func", "PKG.Type.Method"; PKG
// relative to the module root), which must exist in the tree.
type life struct {
	Name  string // the section's marker name is "life of " + Name
	Intro string
	Steps []step
}

type step struct {
	Pkg   string
	Text  string
	Cites []string
}

// lives are the three paths ARCHITECTURE.md tells. Edit the words here and run
// `go run ./testkit/archdoc`; a step whose function was renamed or removed fails it.
var lives = []life{
	{
		Name:  "a start",
		Intro: "From zot spawning the extension to `ready` (inside the host's 250 ms window), and what runs after it.",
		Steps: []step{
			{".", "zot runs `./launch` (extension.json `exec`), which compares the sources' `cksum` listing with the stamp written at the last build and execs the binary (compiling only when the content differs). `main` first lets the process become a server's supervisor when it was re-executed as one, then hands the command line to the CLI.",
				[]string{"main", "internal/supervise.MaybeRun", "cli.Run"}},
			{"cli", "With no arguments and a stdin that is not a terminal, the bridge is built and run as a zot extension; on SIGTERM, SIGINT or stdin's end every server is stopped within the host's grace.",
				[]string{"cli.runExtension", "bridge.New", "extension.Run"}},
			{"extension", "`hello` is written and `hello_ack` read (the project directory, the host's generation); each field is read on its own, so a field of an unexpected type is logged, not fatal. Then the handler's setup runs, a panic in it recovered.",
				[]string{"extension.parseHelloAck", "extension.runner.setup", "extension.runner.safeSetup"}},
			{"bridge", "`Setup` maps the startup file's sent section (the registrations the last start with the same raw inputs sent); when its key matches, the section goes to the writer as is while the config is parsed. Otherwise the config and the approvals are loaded and the startup set comes from the startup file's payloads, or from the cache read by its lines (decoded when laid out otherwise).",
				[]string{"bridge.Bridge.Setup", "bridge.Bridge.loadLocal", "startup.ReadSent", "startup.Boot.SendSent", "startup.Boot.LoadFile", "cache.ReadListings", "startup.FromListings", "startup.FromFile", "cache.Read", "config.Load", "trust.Read"}},
			{"bridge", "The registrations are built from the startup set in one buffer by mode (the search tool, then every catalog tool deferred, or the one call tool and the tools `alwaysLoad` names in proxy mode, or every tool eager; `mcp__read_resource` and `mcp__task_result` when a server is configured) and `/mcp`, and handed to the writer a chunk at a time while the rest is built; `extension.Run` then sends `ready`.",
				[]string{"bridge.Bridge.register", "bridge.Bridge.registrations", "bridge.Bridge.registerTools", "bridge.Bridge.addTools", "extension.Registrations.StreamTo"}},
			{"bridge", "After `ready`, in the background: the catalog is built from the decoded cache (calls wait for it), the startup file is rewritten for this configuration unless its sent section was used, the startup problems become one note, and servers whose cache entry is missing or stale are started and listed into the cache.",
				[]string{"bridge.Bridge.afterReady", "bridge.Bridge.finishStartup", "bridge.Bridge.catalogFromFile", "startup.Boot.Write", "bridge.Bridge.Refresh", "cache.Update"}},
		},
	},
	{
		Name:  "a tool call",
		Intro: "From zot's `tool_call` to the server's `tools/call` and back.",
		Steps: []step{
			{"extension", "The one reader goroutine (it owns stdin) decodes the frame, gives the call a context that `tool_cancel` and shutdown cancel, and hands it to an idle worker; the reader never blocks on a call.",
				[]string{"extension.runner.readLoop", "extension.runner.dispatch", "extension.runner.startTool", "extension.workers.run", "extension.runner.serveTool"}},
			{"bridge", "`CallTool` routes by name: the search tool, the proxy's call tool (arguments checked against the tool's schema before any server is touched), resources and task results, or a catalog entry under the name pinned to it when it was registered. A project server the user has not approved answers here. The call gets its progress token and question watch, and its arguments go on as raw JSON.",
				[]string{"bridge.Bridge.CallTool", "bridge.Bridge.resolveCall", "bridge.Bridge.callEntry", "bridge.Bridge.callContext", "catalog.Catalog.Lookup"}},
			{"lifecycle", "`Server.Call` wakes the server if it sleeps (single-flight; fails fast while it awaits approval, backs off or is parked) by opening a session through the connector the bridge chose for its transport when it wired the server (a stdio process, an HTTP server, a test's in-process session); the state machine names no transport. The call runs under the request timeout and the overall budget on the injected clock (a deadline gives the request up only a settle grace after it passes), a tool that allows tasks is sent as a task, and a read-only or idempotent call whose transport broke is sent once more on a new session. A failure is worded from how the session ended, else from the contexts, else from the connector's `session.Error` kind; the idle timer restarts when the last call ends.",
				[]string{"lifecycle.Server.Call", "lifecycle.Server.acquire", "lifecycle.Server.open", "lifecycle.settled", "lifecycle.Server.callErr", "lifecycle.Server.release", "bridge.Bridge.connector", "session.StdioConnector.Open", "remote.Server.Open"}},
			{"session", "`CallTool`, like every request of a session, goes through the one wrapper: a session that has ended fails it at once, unsent, and one that ends under it fails it with its end (`EndedError`). Without HTTP (stdio, a pipe, in-process) the `tools/call` params are encoded once and sent on mcp-go's transport; over HTTP through mcp-go's `CallTool` with the tool's `Mcp-Param-*` headers. A cancelled context sends `notifications/cancelled`. A stdio server's reply is read through the reply limiter, one message a line.",
				[]string{"session.Client.CallTool", "session.Client.request", "session.Client.callFast", "session.Client.callHeader", "session.openFramed"}},
			{"toolresult", "The MCP result becomes zot's content blocks within the text budget, with a visible marker where it was cut; the whole text of a cut result is kept in a private file the marker names.",
				[]string{"toolresult.Convert", "toolresult/spill.Dir.Save"}},
			{"extension", "The `tool_result` frame is encoded into a pooled buffer and queued to the one writer goroutine (it owns stdout).",
				[]string{"extension.writer.sendToolResult", "extension.writer.loop"}},
		},
	},
	{
		Name:  "a search",
		Intro: "From the model's `mcp__search_tools` call to the tools it may call next.",
		Steps: []step{
			{"extension", "The call arrives as any tool call does (the life of a tool call, step 1).",
				[]string{"extension.runner.dispatch"}},
			{"bridge", "`CallTool` sends the search tool's name to the search: its arguments are checked (a query, a limit within bounds); a search while servers are still being listed, or with no server or no tool, is answered in words.",
				[]string{"bridge.Bridge.CallTool", "bridge.Bridge.search"}},
			{"catalog", "The current catalog's index is built on first use from every tool's name, description and parameters (the bridge starts the build in the background right after ready, so a search usually finds it built).",
				[]string{"catalog.Catalog.SearchIndex", "search.New"}},
			{"search", "The index answers exact names and `select:` first; otherwise the request is read into weighted terms and its verb (`search/query`: the words, the lexicon's intents, expansions, the thesaurus) and the tools are ranked for them over their fields, with the ranking signals.",
				[]string{"search.Index.Search", "search.Index.rank", "search/query.Analyser.Analyse"}},
			{"toolview", "The answer lists the tools found, one line each, and activates them for the host (deferred mode); in proxy mode it shows each tool's compact schema and an example call of the one call tool.",
				[]string{"toolview.ResultLine", "bridge.Bridge.proxySearchAnswer", "toolview.CompactSchema", "toolview.ExampleCall"}},
		},
	},
}

// render writes the life as numbered steps, each followed by the files and functions it
// cites (files in the order the step first names them); a cite the tree does not define is an error naming the step.
func (l life) render(t *tree) (string, error) {
	var b strings.Builder
	b.WriteString(l.Intro + "\n\n")
	for i, s := range l.Steps {
		byFile := map[string][]string{}
		var files []string
		for _, c := range s.Cites {
			file, sym, err := t.resolve(c)
			if err != nil {
				return "", fmt.Errorf("the life of %s, step %d (%s): %v; change the step in testkit/archdoc/lives.go", l.Name, i+1, s.Pkg, err)
			}
			if _, ok := byFile[file]; !ok {
				files = append(files, file)
			}
			byFile[file] = append(byFile[file], "`"+sym+"`")
		}
		var where []string
		for _, f := range files {
			where = append(where, "`"+f+"`: "+strings.Join(byFile[f], ", "))
		}
		fmt.Fprintf(&b, "%d. %s — %s\n", i+1, "**"+label(s.Pkg)+"**", s.Text)
		if len(where) > 0 {
			fmt.Fprintf(&b, "   (%s)\n", strings.Join(where, "; "))
		}
	}
	return b.String(), nil
}

// resolve finds the file that defines a cite "PKG.Name" or "PKG.Type.Method" ("main" alone
// is the root package's main function), and returns it with the name as shown.
func (t *tree) resolve(cite string) (file, sym string, err error) {
	pkgPath, name := ".", cite
	if cite != "main" {
		slash := strings.LastIndex(cite, "/")
		dot := strings.Index(cite[slash+1:], ".")
		if dot < 0 {
			return "", "", fmt.Errorf("cite %q names no function (write PKG.Func or PKG.Type.Method)", cite)
		}
		pkgPath, name = cite[:slash+1+dot], cite[slash+1+dot+1:]
	}
	p, ok := t.Pkgs[pkgPath]
	if !ok {
		return "", "", fmt.Errorf("cite %q: the tree has no package %s", cite, pkgPath)
	}
	file, ok = t.Defs[pkgPath+"."+name]
	if !ok {
		return "", "", fmt.Errorf("cite %q: package %s defines no %s any more", cite, pkgPath, name)
	}
	sym = p.Name + "." + name
	if pkgPath == "." {
		sym = "main." + name
	}
	return file, sym, nil
}
