package commands

import (
	"context"
	"errors"
	"strings"
	"testing"
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
