package commands

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestFailuresNameTheirCause: a lifecycle command that fails says why in its error line
// (the one line the host surely shows), a server whose last start failed is "failed" and
// not "asleep", and a server with a config error names the error instead of "disabled or
// has a config error".
func TestFailuresNameTheirCause(t *testing.T) {
	ctx := context.Background()
	crashy := &fakeServer{cfg: stdio("crashy"), st: Status{State: StateAsleep, Failures: 1, LastError: "exit status 3; last stderr: fatal: cannot open db"},
		startErr: errors.New("exit status 3; last stderr: fatal: cannot open db")}
	needvar := &fakeServer{cfg: stdio("needvar"), st: Status{State: StateDisabled}}
	needvar.cfg.Enabled = false
	needvar.cfg.Err = "env.A: environment variable UNSET_A is not set"
	idle := &fakeServer{cfg: stdio("idle"), st: Status{State: StateAsleep}}
	h := newFakeHost(crashy, needvar, idle)

	for _, c := range []struct {
		line, want string
	}{
		{"start crashy", "/mcp start crashy failed: crashy: exit status 3; last stderr: fatal: cannot open db"},
		{"restart crashy", "crashy: exit status 3"},
		{"start needvar", "needvar has a config error: env.A: environment variable UNSET_A is not set"},
	} {
		_, err := Line(ctx, h, c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("/mcp %s: error %v, want it to contain %q", c.line, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "details above") {
			t.Errorf("/mcp %s points at details elsewhere: %v", c.line, err)
		}
	}

	dash, err := Line(ctx, h, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(dash, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "crashy ") && !strings.Contains(l, "failed"):
			t.Errorf("the dashboard row of a server whose start failed: %q", l)
		case strings.HasPrefix(strings.TrimSpace(l), "idle ") && !strings.Contains(l, "asleep"):
			t.Errorf("the dashboard row of an idle server: %q", l)
		}
	}
	if d, _ := Line(ctx, h, "crashy"); !strings.HasPrefix(d, `MCP server "crashy" — failed`) {
		t.Errorf("/mcp crashy: %q", strings.SplitN(d, "\n", 2)[0])
	}
}

// TestWordsMatchTheHost: proxy mode needs no reload for changed tools (the search and call
// tools read the refreshed catalog), and the CLI's trust listing names CLI commands.
func TestWordsMatchTheHost(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		mode, want, not string
	}{
		{"deferred", "Tools changed for fs: run /reload-ext to load them.", "no reload needed"},
		{"proxy", "Tools changed for fs: they can be searched and called now, no reload needed.", "/reload-ext"},
	} {
		h := newFakeHost(&fakeServer{cfg: stdio("fs"), st: Status{State: StateReady, Tools: 3}})
		h.mode = c.mode
		out, err := Line(ctx, h, "refresh fs")
		if err != nil || !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
			t.Errorf("%s: refresh fs = %q, %v; want %q without %q", c.mode, out, err, c.want, c.not)
		}
	}
	h := newFakeHost(&fakeServer{cfg: stdio("fs")})
	h.surface = SurfaceCLI
	out, _ := Line(ctx, h, "trust")
	if !strings.Contains(out, "mcp-bridge trust <server>|--all") || strings.Contains(out, "/mcp") {
		t.Errorf("CLI trust listing: %q", out)
	}
	h.surface = SurfaceZot
	if out, _ := Line(ctx, h, "trust"); !strings.Contains(out, "/mcp trust <server>|all") {
		t.Errorf("zot trust listing: %q", out)
	}
}

// TestDashboardColumns: every row's tool count starts in the same column, whatever the
// state's word, and one tool is "1 tool".
func TestDashboardColumns(t *testing.T) {
	ready := &fakeServer{cfg: stdio("ready"), st: Status{State: StateReady, Tools: 1}}
	proj := &fakeServer{cfg: stdio("proj"), st: Status{State: StateAsleep}, pending: true}
	proj.cfg.Scope = config.ScopeProject
	broken := &fakeServer{cfg: stdio("broken"), st: Status{State: StateDisabled}}
	broken.cfg.Err = "env.A: environment variable A is not set"
	out, err := Line(context.Background(), newFakeHost(ready, proj, broken), "")
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, l := range strings.Split(out, "\n") {
		i := strings.Index(l, " tool")
		if i < 0 || !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "    ") {
			continue
		}
		if col >= 0 && i != col {
			t.Errorf("tool counts not aligned (%d vs %d):\n%s", i, col, out)
		}
		col = i
	}
	if col < 0 {
		t.Fatalf("no rows with tool counts:\n%s", out)
	}
	if strings.Contains(out, "1 tools") {
		t.Errorf("dashboard says 1 tools:\n%s", out)
	}
}

// TestDetailSaysWhereStderrIs: on the CLI, whose every run starts afresh, the details of a
// stdio server with no stderr kept name the command that shows it; inside zot they show
// the kept lines.
func TestDetailSaysWhereStderrIs(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(&fakeServer{cfg: stdio("crashy"), st: Status{State: StateAsleep}})
	h.surface = SurfaceCLI
	if d, _ := Line(ctx, h, "crashy"); !strings.Contains(d, "stderr:     not kept between commands; mcp-bridge refresh --server crashy starts it") {
		t.Errorf("CLI details:\n%s", d)
	}
	h = newFakeHost(&fakeServer{cfg: stdio("crashy"), st: Status{State: StateAsleep, Failures: 1, Stderr: []string{"fatal: cannot open db"}, StderrSeen: 1}})
	if d, _ := Line(ctx, h, "crashy"); !strings.Contains(d, "    fatal: cannot open db") || strings.Contains(d, "not kept") {
		t.Errorf("zot details:\n%s", d)
	}
}
