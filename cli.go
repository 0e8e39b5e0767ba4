package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// commands maps CLI subcommands to their implementations.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"doctor":  cmdDoctor,
	"tools":   cmdTools,
	"search":  cmdSearch,
	"call":    cmdCall,
	"refresh": cmdRefresh,
	"setup":   cmdSetup,
	"import":  cmdImport,
	"trust":   cmdTrust,
	"untrust": cmdUntrust,
}

// exitFor maps flag parsing errors: --help is success.
func exitFor(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	f := newFlags("doctor [--cwd DIR]", "doctor [--cwd DIR]", stderr)
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	cfg := b.Config()
	broken := false
	fmt.Fprintln(stdout, "Config files:")
	for _, file := range cfg.Files {
		state := "not found (fine)"
		switch {
		case file.Err != "":
			state, broken = "ERROR: "+file.Err, true
		case file.Found:
			state = "read"
		}
		fmt.Fprintf(stdout, "  %-8s %s — %s\n", file.Scope, file.Path, state)
	}
	mode, why := b.Mode()
	fmt.Fprintf(stdout, "Tool exposure: %s (%s)\n", mode, why)
	if len(cfg.Problems) > 0 {
		fmt.Fprintln(stdout, "Problems:")
		for _, p := range cfg.Problems {
			// A warning (an ignored field, a likely typo) is shown but breaks nothing.
			broken = broken || !p.Warning()
			fmt.Fprintln(stdout, "  "+p.String())
		}
	}
	names := b.ServerNames()
	if len(names) == 0 {
		fmt.Fprintln(stdout, "No MCP servers configured. Add one with: mcp-bridge setup add <template> (see mcp-bridge setup templates)")
		return boolExit(broken)
	}
	fmt.Fprintf(stdout, "Servers (%d):\n", len(names))
	type outcome struct {
		line string
		bad  bool
	}
	results := make([]outcome, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		s, _ := b.Server(n)
		c := s.Config()
		if s.NeedsApproval() {
			results[i] = outcome{fmt.Sprintf("  %-20s NEEDS APPROVAL: %s [%s]; approve: mcp-bridge trust %s", n, bridge.RunsText(c)+bridge.ReplacesText(c), c.Source, n), true}
			continue
		}
		if !c.Usable() {
			if c.Err != "" {
				results[i] = outcome{fmt.Sprintf("  %-20s CONFIG ERROR: %s [%s]", n, c.Err, c.Source), true}
			} else {
				results[i] = outcome{fmt.Sprintf("  %-20s disabled [%s]", n, c.Source), false}
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), c.ConnectTimeout+time.Second)
			defer cancel()
			if err := s.Start(ctx); err != nil {
				results[i] = outcome{fmt.Sprintf("  %-20s FAILED: %s [%s]", n, bridge.UserText(err), c.Source), true}
				return
			}
			results[i] = outcome{fmt.Sprintf("  %-20s ok: %d tools in %s via %s [%s]", n, len(s.Tools()),
				time.Since(began).Round(time.Millisecond), s.Status().Transport, c.Source), false}
		}()
	}
	wg.Wait()
	for _, r := range results {
		fmt.Fprintln(stdout, r.line)
		broken = broken || r.bad
	}
	if broken {
		fmt.Fprintln(stdout, "Something needs attention (see above).")
	} else {
		fmt.Fprintln(stdout, "All good.")
	}
	return boolExit(broken)
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
	f := newFlags("tools", "tools [--server S] [--cwd DIR]", stderr)
	server := f.fs.String("server", "", "only this server")
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
	tools := b.Tools(*server)
	for _, t := range tools {
		fmt.Fprintf(stdout, "%s\t%s\n", t.Name, bridge.FirstLine(t.Description, 100))
	}
	if len(tools) == 0 {
		fmt.Fprintln(stderr, "no cached tools; run `mcp-bridge refresh` to list them")
	}
	return 0
}

func cmdSearch(args []string, stdout, stderr io.Writer) int {
	f := newFlags("search", "search QUERY [--limit N] [--cwd DIR]", stderr)
	limit := f.fs.Int("limit", 8, "how many results (1-20)")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) == 0 {
		f.fs.Usage()
		return 2
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	raw, _ := json.Marshal(map[string]any{"query": strings.Join(pos, " "), "limit": *limit})
	return printResult(b.CallTool(context.Background(), extension.ToolCall{ID: "cli", Name: bridge.SearchToolName, Args: raw}), stdout)
}

func cmdCall(args []string, stdout, stderr io.Writer) int {
	f := newFlags("call", "call SERVER TOOL ['JSON arguments'] [--cwd DIR]", stderr)
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) < 2 || len(pos) > 3 {
		f.fs.Usage()
		return 2
	}
	argJSON := json.RawMessage("{}")
	if len(pos) == 3 {
		argJSON = json.RawMessage(pos[2])
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	return printResult(b.CallByName(context.Background(), pos[0], pos[1], argJSON), stdout)
}

func printResult(r extension.ToolResult, stdout io.Writer) int {
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			fmt.Fprintln(stdout, c.Text)
		default:
			fmt.Fprintf(stdout, "[%s %s, %d bytes base64]\n", c.Type, c.MimeType, len(c.Data))
		}
	}
	if len(r.StructuredContent) > 0 {
		fmt.Fprintf(stdout, "structured: %s\n", r.StructuredContent)
	}
	if len(r.ActivateTools) > 0 {
		fmt.Fprintf(stdout, "activates: %s\n", strings.Join(r.ActivateTools, ", "))
	}
	return boolExit(r.IsError)
}

func cmdRefresh(args []string, stdout, stderr io.Writer) int {
	f := newFlags("refresh", "refresh [--server S] [--cwd DIR]", stderr)
	server := f.fs.String("server", "", "only this server")
	if _, err := f.parse(args); err != nil {
		return exitFor(err)
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	var names []string
	for _, n := range b.ServerNames() {
		s, _ := b.Server(n)
		if (*server == "" || *server == n) && s.Config().Usable() {
			if s.NeedsApproval() {
				fmt.Fprintf(stdout, "Skipped %s: a project server that needs your approval (mcp-bridge trust %s)\n", n, n)
				continue
			}
			names = append(names, n)
		}
	}
	if *server != "" && len(names) == 0 {
		fmt.Fprintf(stderr, "server %q is unknown, disabled or broken; see mcp-bridge doctor\n", *server)
		return 1
	}
	sort.Strings(names)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r := b.RefreshReport(ctx, names)
	if r.SaveErr != nil {
		fmt.Fprintf(stdout, "Listed %d of %d server(s), but %s\n", len(r.Listed), len(names), r.SaveText())
	} else {
		fmt.Fprintf(stdout, "Refreshed %d of %d server(s); changed: %s\n", len(r.Listed), len(names), orNone(r.Changed))
	}
	for _, e := range r.Errs {
		fmt.Fprintln(stdout, "  "+e)
	}
	return boolExit(len(r.Errs) > 0 || r.SaveErr != nil)
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
	out, err := b.Command(context.Background(), "setup "+strings.Join(args, " "))
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}
