package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// bridgeOn loads a bridge from the written config for a surface (no host).
func (e *testEnv) bridgeOn(gen extension.Generation, sf commands.Surface) *Bridge {
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(e.t)),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS(), Surface: sf})
	b.Load(e.project, gen)
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// Hints name the commands of where the user is: /mcp inside zot, mcp-bridge on the CLI.
func TestSurfaceHintsInMessages(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"dead": e.server("-exit-on-start"), "off": map[string]any{"command": "x", "enabled": false}}, nil)
	for _, tc := range []struct {
		sf      commands.Surface
		want    []string
		notWant []string
	}{
		{commands.SurfaceZot, []string{"then /mcp start dead", "zot ext logs mcp-bridge -f", "then /reload-ext"}, []string{"mcp-bridge refresh", "MCP_BRIDGE_LOG"}},
		{commands.SurfaceCLI, []string{"then mcp-bridge refresh --server dead", "MCP_BRIDGE_LOG=debug", "then a zot restart (or /reload-ext inside zot)"}, []string{"/mcp start"}},
	} {
		b := e.bridgeOn(extension.GenNew, tc.sf)
		e.failUntilParked(e.srv(b, "dead"))
		_, err := e.srv(b, "dead").Call(ctxGuard(t), "echo", nil, true)
		dead, _ := commands.Detail(b.Commands(), "dead")
		off, _ := commands.Detail(b.Commands(), "off")
		text := err.Error() + "\n" + dead + "\n" + off
		has(t, "messages", text, tc.want...)
		hasNot(t, "messages", text, tc.notWant...)
	}
}

// Every line of /mcp and /mcp help fits a 100-column terminal, whatever the mode, errors,
// problems and name lengths.
func TestMCPOutputFitsWidth(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	long := strings.Repeat("n", config.MaxServerNameLen)
	e.write(map[string]any{
		long:   mergeMap(e.server(), map[string]any{"env": map[string]any{"A_RATHER_LONG_VARIABLE": "${A_VARIABLE_THAT_IS_NOT_SET_ANYWHERE_AT_ALL}"}}),
		"dead": e.server("-exit-on-start"),
		"ok":   e.server(),
	}, nil)
	p := config.ProjectPath(e.project)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"mcpServers": {"x": {"command": "y",}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, gen := range []extension.Generation{extension.GenLegacy, extension.GenNew} {
		b := e.bridgeOn(gen, commands.SurfaceZot)
		e.failUntilParked(e.srv(b, "dead"))
		for _, args := range []string{"", "help"} {
			out, err := b.Command(ctxGuard(t), args)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(l); n > commands.LineWidth {
					t.Errorf("/mcp %s (gen %d): a line of %d columns:\n%s", args, gen, n, l)
				}
			}
			if args == "" {
				has(t, "/mcp", out, "problem: "+p, "— mode: ", "fatal: boom", "A_VARIABLE_THAT_IS_NOT_SET_ANYWHERE_AT_ALL")
				// The mode line and the command line are short enough not to need wrapping.
				lines := strings.Split(out, "\n")
				if !strings.HasSuffix(lines[0], ")") || !strings.HasSuffix(lines[len(lines)-1], "setup|help") {
					t.Errorf("/mcp header or footer wrapped:\n%s", out)
				}
			}
		}
	}
}

// search tells "being fetched" only while a refresh runs; otherwise it says how to list
// the tools.
func TestSearchNoToolsWording(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server()}, nil)
	for _, tc := range []struct {
		sf       commands.Surface
		fetching bool
		want     string
	}{
		{commands.SurfaceCLI, false, "Run `mcp-bridge refresh`"},
		{commands.SurfaceZot, false, "none are being fetched: the user can run `/mcp refresh`"},
		{commands.SurfaceZot, true, "being fetched right now"},
	} {
		b := e.bridgeOn(extension.GenNew, tc.sf)
		if tc.fetching {
			b.refreshing.Add(1)
		}
		text := textOf(t, b.CallTool(ctxGuard(t), extension.ToolCall{ID: "1", Name: SearchToolName, Args: []byte(`{"query":"echo"}`)}))
		has(t, "search", text, tc.want)
		if !tc.fetching {
			hasNot(t, "search", text, "being fetched right now")
		}
	}
}

// RefreshEach reports every server once as it finishes and counts truthfully.
func TestRefreshEachReports(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"a": e.server(), "b": e.server("-tools", "2"), "dead": e.server("-exit-on-start")}, nil)
	b := e.bridgeOn(extension.GenNew, commands.SurfaceCLI)
	seen := map[string]RefreshResult{}
	rep := b.RefreshEach(ctxGuard(t), []string{"a", "b", "dead"}, func(r RefreshResult) {
		if _, dup := seen[r.Name]; dup {
			t.Errorf("%s reported twice", r.Name)
		}
		seen[r.Name] = r
	})
	if len(seen) != 3 || seen["a"].Err != nil || seen["b"].Tools != seen["a"].Tools+2 || seen["dead"].Err == nil {
		t.Fatalf("reports: %+v", seen)
	}
	if rep.Listed != 2 || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0], "dead") || rep.CacheErr != nil ||
		strings.Join(rep.Changed, ",") != "a,b" {
		t.Fatalf("report: %+v", rep)
	}
}

// A broken config file shows in /mcp, and an empty list then says why.
func TestMCPShowsBrokenFile(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), []byte(`{"mcpServers": {"x": {"command": "y",}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b := e.bridgeOn(extension.GenNew, commands.SurfaceZot)
	out, err := b.Command(ctxGuard(t), "")
	if err != nil {
		t.Fatal(err)
	}
	has(t, "/mcp", out, "none loaded: a config file is broken", "problem: "+filepath.Join(e.home, "mcp.json")+": ", "line 1")
	hasNot(t, "/mcp", out, "none configured")
}
