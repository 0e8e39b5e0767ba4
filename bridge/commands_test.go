package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/templates"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// hostEnv is a bridge served by extension.Run and driven by the fake host.
type hostEnv struct {
	*testEnv
	h   *exttest.Host
	b   *Bridge
	seq int
}

// startHost runs a bridge over the fake host's pipes and completes the handshake as a NEW
// host in e.project. tune adjusts the bridge before it runs.
func (e *testEnv) startHost(tune func(*Bridge)) *hostEnv {
	t := e.t
	t.Helper()
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(t)),
		Supervisor: supervisorArgv(), Connect: e.connect()})
	if tune != nil {
		tune(b)
	}
	h, in, out := exttest.NewPipe(t)
	runDone := make(chan error, 1)
	go func() {
		runDone <- extension.Run(context.Background(), in, out, b, extension.Options{Name: "mcp"})
		_ = out.(io.Closer).Close()
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		select {
		case err := <-runDone:
			if err != nil {
				t.Errorf("extension.Run: %v", err)
			}
		case <-ctx.Done():
			t.Error("extension.Run did not return after shutdown")
		}
		b.Close(ctx)
	})
	if hello := h.ExpectHello(ctxGuard(t)); hello.Name != "mcp" {
		t.Fatalf("hello name %q", hello.Name)
	}
	regs := h.Handshake(ctxGuard(t), exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}})
	registered := false
	for _, f := range regs {
		var c struct {
			Name string `json:"name"`
		}
		if f.Type == "register_command" && f.Decode(&c) == nil && c.Name == "mcp" {
			registered = true
		}
	}
	if !registered {
		t.Fatal("/mcp was not registered")
	}
	return &hostEnv{testEnv: e, h: h, b: b}
}

// run sends /mcp args and returns the response (always a display).
func (he *hostEnv) run(args string) exttest.CommandResponse {
	he.t.Helper()
	he.seq++
	r, err := he.h.Command(ctxGuard(he.t), strconv.Itoa(he.seq), "mcp", args)
	if err != nil {
		he.t.Fatalf("/mcp %s: %v", args, err)
	}
	if r.Action != "display" {
		he.t.Errorf("/mcp %s: action %q, want display", args, r.Action)
	}
	return r
}

// ok runs a command that must succeed and returns its text.
func (he *hostEnv) ok(args string) string {
	he.t.Helper()
	r := he.run(args)
	if r.Error != "" {
		he.t.Fatalf("/mcp %s failed: %s\n%s", args, r.Error, r.Display)
	}
	return r.Display
}

// fail runs a command that must fail and returns its error.
func (he *hostEnv) fail(args string) exttest.CommandResponse {
	he.t.Helper()
	r := he.run(args)
	if r.Error == "" {
		he.t.Fatalf("/mcp %s succeeded, want an error:\n%s", args, r.Display)
	}
	return r
}

func (he *hostEnv) server(name string) *lifecycle.Server { return he.srv(he.b, name) }

func has(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
}

func hasNot(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(text, s) {
			t.Errorf("%s contains %q:\n%s", what, s, text)
		}
	}
}

// seedCache stores a fresh cache entry with n placeholder tools for each named server, so
// the bridge starts with them asleep instead of listing them after ready.
func (e *testEnv) seedCache(counts map[string]int) {
	e.t.Helper()
	c := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	put := map[string]*cache.Server{}
	for name, n := range counts {
		s, ok := c.Server(name)
		if !ok {
			e.t.Fatalf("seedCache: no server %q", name)
		}
		ent := &cache.Server{Fingerprint: s.Fingerprint()}
		for i := range n {
			ent.Tools = append(ent.Tools, cache.Tool{Name: fmt.Sprintf("cached_%d", i), Description: "placeholder",
				InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		put[name] = ent
	}
	if _, err := cache.Update(ctxGuard(e.t), cache.DefaultPath(e.home), put, nil, time.Now); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) writeProject(servers map[string]any) {
	e.t.Helper()
	raw, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	p := config.ProjectPath(e.project)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// failUntilParked makes s fail lifecycle.ParkAfter starts in a row (advancing the fake clock past
// each backoff).
func (e *testEnv) failUntilParked(s *lifecycle.Server) {
	e.t.Helper()
	for i := 0; i < lifecycle.ParkAfter; i++ {
		if _, err := s.Call(ctxGuard(e.t), "echo", nil, true); err == nil {
			e.t.Fatal("call on a failing server succeeded")
		}
		e.clock.Advance(time.Minute)
	}
	if st := s.Status().State; st != lifecycle.StateParked {
		e.t.Fatalf("state %s after %d failures, want parked", st, lifecycle.ParkAfter)
	}
}

type dashRow struct {
	state string
	tools int
	scope string
	err   string
}

var dashLine = regexp.MustCompile(`^  (\S+)\s+(asleep|starting|ready|stopping|backing off|parked|disabled|config error|needs approval|needs login|failed)\s+(\d+) tools?\s+\((global|project)\)(?:  — (.*))?$`)

// parseDashboard splits /mcp output into its first line and one row per server.
func parseDashboard(t *testing.T, text string) (string, map[string]dashRow) {
	t.Helper()
	lines := strings.Split(text, "\n")
	rows := map[string]dashRow{}
	last := ""
	for _, l := range lines[1:] {
		if m := dashLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[3])
			rows[m[1]] = dashRow{state: m[2], tools: n, scope: m[4], err: m[5]}
			last = m[1]
		} else if r, ok := rows[last]; ok && strings.HasPrefix(l, "      ") {
			// A long error continues on the next lines (rows fit 100 columns).
			r.err += " " + strings.TrimSpace(l)
			rows[last] = r
		} else {
			last = ""
		}
	}
	return lines[0], rows
}

func wantRow(t *testing.T, rows map[string]dashRow, name string, want dashRow) {
	t.Helper()
	got, ok := rows[name]
	if !ok {
		t.Errorf("dashboard has no row for %s", name)
		return
	}
	if got.state != want.state || got.tools != want.tools || got.scope != want.scope {
		t.Errorf("%s: got %s/%d tools/%s, want %s/%d tools/%s", name, got.state, got.tools, got.scope, want.state, want.tools, want.scope)
	}
	if want.err != "" && !strings.Contains(got.err, want.err) {
		t.Errorf("%s: last error %q lacks %q", name, got.err, want.err)
	}
	if want.err == "" && got.err != "" {
		t.Errorf("%s: unexpected error %q", name, got.err)
	}
}

func TestCommandDashboard(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"sleepy": e.server(),
		"live":   e.server(),
		"broken": mergeMap(e.server(), map[string]any{"env": map[string]any{"K": "${MISSING_VAR}"}}),
		"off":    mergeMap(e.server(), map[string]any{"enabled": false}),
		"dead":   e.server("-exit-on-start"),
	}, nil)
	e.writeProject(map[string]any{"proj": e.server()})
	e.seedCache(map[string]int{"sleepy": 3, "live": 1, "dead": 1, "proj": 2})
	he := e.startHost(nil)
	e.failUntilParked(he.server("dead"))
	has(t, "start", he.ok("start live"), "Started:\n  live: ready")
	live := len(he.server("live").Tools())
	if live < 2 {
		t.Fatalf("fake server listed %d tools", live)
	}

	for _, args := range []string{"", "status"} {
		text := he.ok(args)
		head, rows := parseDashboard(t, text)
		if !strings.HasPrefix(head, "MCP servers (6) — mode: deferred") {
			t.Errorf("/mcp %s: header %q", args, head)
		}
		if len(rows) != 6 {
			t.Errorf("/mcp %s: %d server rows, want 6:\n%s", args, len(rows), text)
		}
		wantRow(t, rows, "sleepy", dashRow{state: "asleep", tools: 3, scope: "global"})
		wantRow(t, rows, "live", dashRow{state: "ready", tools: live, scope: "global"})
		wantRow(t, rows, "broken", dashRow{state: "config error", tools: 0, scope: "global", err: "MISSING_VAR"})
		wantRow(t, rows, "off", dashRow{state: "disabled", tools: 0, scope: "global"})
		wantRow(t, rows, "dead", dashRow{state: "parked", tools: 1, scope: "global", err: "boom"})
		// A project server waits for the user's approval: its cached tools are not offered.
		wantRow(t, rows, "proj", dashRow{state: "needs approval", tools: 0, scope: "project", err: "approve: /mcp trust proj"})
		has(t, "dashboard", text, "\nCommands: /mcp <server>", "start|stop|restart|refresh", "help")
	}
}

func TestCommandDashboardModeAndEmpty(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{}, map[string]any{"toolExposure": "proxy"})
	he := e.startHost(nil)
	text := he.ok("")
	head, rows := parseDashboard(t, text)
	if !strings.HasPrefix(head, "MCP servers (0) — mode: proxy") || len(rows) != 0 {
		t.Errorf("dashboard:\n%s", text)
	}
	has(t, "empty dashboard", text, "none configured", "/mcp setup add <template>", config.GlobalPath(e.home))
	for _, args := range []string{"restart", "refresh", "start all", "stop all"} {
		has(t, "/mcp "+args, he.fail(args).Error, "no MCP servers configured")
	}
	r := he.fail("frob")
	has(t, "unknown with no servers", r.Error, `"frob"`, "(none configured)")
}

func TestCommandHelp(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{}, nil)
	he := e.startHost(nil)
	help := he.ok("help")
	for _, want := range []string{
		"/mcp [status]", "/mcp help", "/mcp <server>", "/mcp start <server|all>", "/mcp stop <server|all>",
		"/mcp restart [server]", "/mcp refresh [server]", "/mcp setup templates",
		"/mcp setup add <template> [--global|--project] [--name <server>] [--path <dir>] [--force]", "zot ext logs mcp-bridge -f",
	} {
		has(t, "help", help, want)
	}
	for _, alias := range []string{"-h", "--help"} {
		if got := he.ok(alias); got != help {
			t.Errorf("/mcp %s differs from /mcp help:\n%s", alias, got)
		}
	}
}

func TestCommandDetail(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.env["SRV_NAME"] = "expanded-name-value"
	e.env["MY_TOKEN"] = "sk-var-SECRET-3"
	loc := e.server("-name", "${SRV_NAME}")
	loc["env"] = map[string]any{
		"API_TOKEN":    "sk-env-SECRET-1",
		"REF_TOKEN":    "${MY_TOKEN}",
		"MIXED":        "Bearer ${MY_TOKEN}",
		"WITH_DEFAULT": "${UNSET_TOKEN:-sk-default-SECRET-2}",
	}
	loc["connectTimeout"] = 120
	loc["requestTimeout"] = 7.5
	loc["idleTimeout"] = 0
	e.write(map[string]any{
		"loc": loc,
		"web": map[string]any{
			"type": "http",
			"url":  "https://user:sk-pass-SECRET-4@example.invalid/mcp?key=sk-query-SECRET-5&ref=${MY_TOKEN}&plain",
			"headers": map[string]any{
				"Authorization": "Bearer sk-header-SECRET-6",
				"X-Api-Key":     "${MY_TOKEN}",
			},
		},
		"dead":   e.server("-exit-on-start"),
		"parked": e.server("-exit-on-start"),
		"broken": mergeMap(e.server(), map[string]any{"args": []any{"${MISSING_VAR}"}}),
		"off":    mergeMap(e.server(), map[string]any{"disabled": true}),
	}, nil)
	e.seedCache(map[string]int{"loc": 2, "web": 4, "dead": 1, "parked": 1})
	he := e.startHost(nil)
	src := config.GlobalPath(e.home)

	text := he.ok("loc")
	for _, want := range []string{
		"MCP server \"loc\" — asleep\n",
		"  defined in: " + src + " (global)\n",
		"  transport:  stdio\n",
		"  command:    " + e.fake + " -marker " + e.marker + " -max-lifetime 5m -name ${SRV_NAME}\n",
		"  env:        API_TOKEN=<set>, MIXED=<set, uses ${MY_TOKEN}>, REF_TOKEN=${MY_TOKEN}, WITH_DEFAULT=<set, uses ${UNSET_TOKEN}>\n",
		"  cwd:        " + e.project + " (project)\n",
		"  timeouts:   connect 2m0s, request 7.5s, idle never\n",
		"  tools:      2 cached\n",
		"  logs:       zot ext logs mcp-bridge -f",
	} {
		has(t, "/mcp loc", text, want)
	}
	hasNot(t, "/mcp loc", text, "SECRET", "expanded-name-value", "last error")

	// Started, it reports the live list and stays as discreet.
	he.ok("start loc")
	text = he.ok("loc")
	has(t, "/mcp loc (ready)", text, "— ready\n", "listed this session", "  last used:  ")
	hasNot(t, "/mcp loc (ready)", text, "SECRET", "expanded-name-value")
	if got := mustCall(t, he.server("loc"), "env", map[string]any{"name": "API_TOKEN"}); !strings.Contains(got, "sk-env-SECRET-1") {
		t.Errorf("the literal env value did not reach the server: %q", got)
	}

	text = he.ok("web")
	for _, want := range []string{
		"MCP server \"web\" — asleep\n",
		"  transport:  streamable-http\n",
		"  url:        https://example.invalid/mcp",
		"  headers:    Authorization=<set>, X-Api-Key=${MY_TOKEN}\n",
		"  timeouts:   connect 30s, request 1m0s, idle 5m0s\n",
		"  tools:      4 cached\n",
	} {
		has(t, "/mcp web", text, want)
	}
	hasNot(t, "/mcp web", text, "SECRET", "user:")
	hasNot(t, "/mcp", he.ok(""), "SECRET")

	// A failed start: the last error and what to do.
	if _, err := he.server("dead").Call(ctxGuard(t), "echo", nil, true); err == nil {
		t.Fatal("exit-on-start server answered")
	}
	text = he.ok("dead")
	has(t, "/mcp dead", text, "— failed\n", "  last error: ", "fatal: boom", "  next:       fix the cause; the next call retries, or run /mcp start dead\n",
		"zot ext logs mcp-bridge -f")

	e.failUntilParked(he.server("parked"))
	text = he.ok("parked")
	has(t, "/mcp parked", text, "— parked\n", "fatal: boom", "  next:       fix the cause, then /mcp start parked\n")
	// /mcp start clears the parking and tries at once (failing again here).
	r := he.fail("start parked")
	has(t, "start parked", r.Display, "parked: failed: ", "fatal: boom")
	if st := he.server("parked").Status(); st.State != lifecycle.StateAsleep || st.Failures != 1 {
		t.Errorf("after /mcp start: %s with %d failures, want asleep with 1", st.State, st.Failures)
	}

	text = he.ok("broken")
	has(t, "/mcp broken", text, "— config error\n", "  last error: ", "MISSING_VAR", "  next:       edit "+src+", then /reload-ext\n")

	text = he.ok("off")
	has(t, "/mcp off", text, "— disabled\n", `set "enabled": true`, "/reload-ext")

	// Unknown names: the error names the valid choices and suggests the closest.
	r = he.fail("lco")
	has(t, "/mcp lco", r.Error, `"lco"`, `Did you mean "loc"?`, "servers: broken, dead, loc, off, parked, web", "Commands: help")
	has(t, "/mcp lco display", r.Display, "/mcp help")
	r = he.fail("loc now")
	has(t, "/mcp loc now", r.Error, "takes no arguments", "/mcp start|stop|restart|refresh loc")
}

func TestCommandLifecycle(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"alpha": e.server(),
		"beta":  e.server(),
		"off":   mergeMap(e.server(), map[string]any{"enabled": false}),
	}, nil)
	e.seedCache(map[string]int{"alpha": 2, "beta": 2})
	he := e.startHost(nil)
	alpha, beta := he.server("alpha"), he.server("beta")

	text := he.ok("start alpha")
	n := len(alpha.Tools())
	if want := fmt.Sprintf("Started:\n  alpha: ready, %d tools", n); text != want {
		t.Errorf("start alpha = %q, want %q", text, want)
	}
	wantState(t, alpha, lifecycle.StateReady, "alpha after start")
	if st := beta.Status().State; st != lifecycle.StateAsleep {
		t.Errorf("beta %s, started with alpha", st)
	}
	pid := mustCall(t, alpha, "pid", nil)

	text = he.ok("restart alpha")
	if want := fmt.Sprintf("Restarted:\n  alpha: ready, %d tools", n); text != want {
		t.Errorf("restart alpha = %q, want %q", text, want)
	}
	if pid2 := mustCall(t, alpha, "pid", nil); pid2 == pid {
		t.Errorf("restart kept the process %s", pid)
	}

	if text = he.ok("stop alpha"); text != "Stopped alpha." {
		t.Errorf("stop alpha = %q", text)
	}
	if st := alpha.Status().State; st != lifecycle.StateAsleep {
		t.Errorf("alpha %s after stop", st)
	}

	const skipped = "\nSkipped (disabled or config error): off"
	text = he.ok("start all")
	if want := fmt.Sprintf("Started:\n  alpha: ready, %d tools\n  beta: ready, %d tools%s", n, n, skipped); text != want {
		t.Errorf("start all = %q, want %q", text, want)
	}
	text = he.ok("restart")
	if want := fmt.Sprintf("Restarted:\n  alpha: ready, %d tools\n  beta: ready, %d tools%s", n, n, skipped); text != want {
		t.Errorf("restart = %q, want %q", text, want)
	}
	if text = he.ok("stop all"); text != "Stopped alpha, beta."+skipped {
		t.Errorf("stop all = %q", text)
	}
	for _, s := range []*lifecycle.Server{alpha, beta} {
		if st := s.Status().State; st != lifecycle.StateAsleep {
			t.Errorf("%s %s after stop all", s.Name(), st)
		}
	}
	if left := testutil.WaitNoProcs(ctxGuard(t), e.marker); len(left) > 0 {
		t.Fatalf("processes left after stop all: %v", left)
	}

	// Refresh says whether /reload-ext is needed, and what changed: the seeded cache
	// differs from the server's real list the first time only.
	changedAlpha := "\n  MCP server \"alpha\" changed its tools: new add, audio, big, cwd, echo, env, fail, image and 5 more; removed cached_0, cached_1."
	if text = he.ok("refresh alpha"); !strings.HasPrefix(text, "Refreshed 1 of 1 server. Tools changed for alpha: run /reload-ext to load them."+changedAlpha) {
		t.Errorf("refresh alpha = %q", text)
	}
	if text = he.ok("refresh alpha"); text != "Refreshed 1 of 1 server. No tool changes; no reload needed." {
		t.Errorf("second refresh alpha = %q", text)
	}
	if text = he.ok("refresh"); !strings.HasPrefix(text, "Refreshed 2 of 2 servers. Tools changed for beta: run /reload-ext to load them.\n  MCP server \"beta\" changed its tools:") ||
		!strings.HasSuffix(text, skipped) {
		t.Errorf("refresh = %q", text)
	}
	f, err := cache.Read(cache.DefaultPath(e.home))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Servers["alpha"].Tools); got != n {
		t.Errorf("cache holds %d alpha tools, want %d", got, n)
	}
	_, rows := parseDashboard(t, he.ok(""))
	wantRow(t, rows, "alpha", dashRow{state: "ready", tools: n, scope: "global"})

	// Argument errors name the valid choices.
	r := he.fail("start")
	has(t, "start without name", r.Error, "usage: /mcp start <server|all>", "servers: alpha, beta, off")
	r = he.fail("start alpah")
	has(t, "start alpah", r.Error, `unknown server "alpah"`, `Did you mean "alpha"?`, "Servers: alpha, beta, off")
	r = he.fail("stop alpha beta")
	has(t, "stop two", r.Error, "one name")
	r = he.fail("restart off")
	has(t, "restart off", r.Error, "nothing to restart: off is disabled")
	r = he.fail("strat alpha")
	has(t, "strat", r.Error, `unknown /mcp command or server "strat"`, `Did you mean "start"?`, "servers: alpha, beta, off")
}

func TestCommandStartFailureIsAnError(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"dead": e.server("-exit-on-start"), "ok": e.server()}, nil)
	e.seedCache(map[string]int{"dead": 1, "ok": 1})
	he := e.startHost(nil)
	r := he.fail("start all")
	has(t, "start all", r.Display, "Started:\n  dead: failed: ", "fatal: boom", "\n  ok: ready, ")
	has(t, "start all error", r.Error, "/mcp start all failed: dead: ", "fatal: boom")
	hasNot(t, "start all error", r.Error, "details above")
	r = he.fail("refresh dead")
	has(t, "refresh dead", r.Display, "Refreshed 0 of 1 server.\n  MCP server \"dead\": ", "fatal: boom")
	hasNot(t, "refresh dead", r.Display, "/reload-ext", "no reload needed")
	has(t, "refresh dead error", r.Error, "/mcp refresh dead failed: ", "fatal: boom")
}

func TestCommandWaitBudget(t *testing.T) {
	t.Parallel()
	if commandBudget != 20*time.Second || commandBudget >= extension.CommandTimeout {
		t.Fatalf("commandBudget %s must stay 20s, inside the host's %s", commandBudget, extension.CommandTimeout)
	}
}

// A start that outlives the command's wait answers "still running", and a note reports
// the outcome once it is known.
func TestCommandStartStillRunningReportsByNote(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"slow": mergeMap(e.server("-hang-start"), map[string]any{"connectTimeout": 3600})}, nil)
	e.seedCache(map[string]int{"slow": 1})
	he := e.startHost(nil)
	slow := he.server("slow")
	// slowly runs a command whose wait runs out: the wait is on the bridge's clock, which
	// the test advances once the command waits.
	slowly := func(args string) string {
		got := make(chan exttest.CommandResponse, 1)
		go func() { got <- he.run(args) }()
		testutil.AdvanceWhenWaiting(ctxGuard(t), t, e.clock, commandBudget)
		r := <-got
		if r.Error != "" {
			t.Fatalf("/mcp %s failed: %s\n%s", args, r.Error, r.Display)
		}
		return r.Display
	}

	if text := slowly("start slow"); text != "/mcp start slow is still running; a note will report the outcome." {
		t.Fatalf("start slow = %q", text)
	}
	waitState(t, slow, lifecycle.StateStarting) // still starting after the answer: it did not wait for it

	// Stopping ends the start; the note reports the outcome.
	if text := he.ok("stop slow"); text != "Stopped slow." {
		t.Errorf("stop slow = %q", text)
	}
	n, err := he.h.WaitNotify(ctxGuard(t), "slow: failed")
	if err != nil {
		t.Fatal(err)
	}
	if n.Level != "warn" {
		t.Errorf("note level %q, want warn", n.Level)
	}
	has(t, "note", n.Message, "Started:\n  slow: failed: ", "stopped while starting")
	if st := slow.Status().State; st != lifecycle.StateAsleep {
		t.Errorf("slow %s after stop", st)
	}

	// The same for a restart of every server (no name in the command).
	if text := slowly("restart"); text != "/mcp restart is still running; a note will report the outcome." {
		t.Fatalf("restart = %q", text)
	}
	waitState(t, slow, lifecycle.StateStarting)
	he.ok("stop all")
	n, err = he.h.WaitNotify(ctxGuard(t), "Restarted:")
	if err != nil {
		t.Fatal(err)
	}
	has(t, "restart note", n.Message, "slow: failed: ")
}

// Background work after ready reports with notes.
func TestCommandBackgroundNotes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"fresh":  e.server(),
		"broken": map[string]any{"command": "x", "env": map[string]any{"K": "${MISSING_VAR}"}},
	}, nil)
	he := e.startHost(nil)
	n, err := he.h.WaitNotify(ctxGuard(t), "MCP config: fix ")
	if err != nil {
		t.Fatal(err)
	}
	has(t, "problems note", n.Message, `"broken"`, "MISSING_VAR")
	if n.Level != "warn" {
		t.Errorf("problems note level %q", n.Level)
	}
	n, err = he.h.WaitNotify(ctxGuard(t), "MCP tool cache updated for fresh")
	if err != nil {
		t.Fatal(err)
	}
	has(t, "cache note", n.Message, "/reload-ext")
	_, rows := parseDashboard(t, he.ok(""))
	wantRow(t, rows, "fresh", dashRow{state: "ready", tools: len(he.server("fresh").Tools()), scope: "global"})
}

func TestCommandSetup(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	global := config.GlobalPath(e.home)
	const orig = "// my servers\n{\n  \"mcpServers\": {},\n  \"custom\": 1, // unknown key\n}\n"
	if err := os.WriteFile(global, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	he := e.startHost(nil)
	load := func() *config.Config {
		return config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	}

	list := he.ok("setup templates")
	ts, err := templates.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range ts {
		has(t, "setup templates", list, tp.Name, tp.Description)
	}
	has(t, "setup templates", list, "(needs SERPLY_API_KEY)")
	has(t, "setup", he.ok("setup"), global, "--project writes <project>/.zot/mcp.json", "Templates:", "/reload-ext")

	// Global by default; unset variables are named.
	text := he.ok("setup add serply")
	has(t, "setup add serply", text, `Added MCP server "serply" from template "serply" in `+global+".",
		"Not set yet: SERPLY_API_KEY", "${SERPLY_API_KEY}", "Run /reload-ext")
	got, _ := os.ReadFile(global)
	has(t, "global file", string(got), "// my servers", "\"custom\": 1, // unknown key", `"X-Api-Key": "${SERPLY_API_KEY}"`)
	s, ok := load().Server("serply")
	if !ok || s.Raw.Headers["X-Api-Key"] != "${SERPLY_API_KEY}" || s.Scope != config.ScopeGlobal {
		t.Fatalf("serply entry: %+v", s)
	}

	// With the variable set, nothing to ask for, and the value is not written.
	e.env["SERPLY_API_KEY"] = "sk-live-SECRET"
	text = he.ok("setup add serply --name serply2 --global")
	has(t, "setup add --name", text, `Added MCP server "serply2" from template "serply"`)
	hasNot(t, "setup add --name", text, "Not set yet", "SECRET")
	got, _ = os.ReadFile(global)
	hasNot(t, "global file", string(got), "SECRET")
	if s, _ := load().Server("serply2"); s == nil || !s.Usable() || s.Headers["X-Api-Key"] != "sk-live-SECRET" {
		t.Errorf("serply2 entry: %+v", s)
	}

	// An existing name needs --force, which replaces it.
	before, _ := os.ReadFile(global)
	r := he.fail("setup add grep --name serply")
	has(t, "existing name", r.Error, `"serply" already exists`, global, "--force")
	if after, _ := os.ReadFile(global); string(after) != string(before) {
		t.Error("refused add changed the file")
	}
	text = he.ok("setup add grep --name serply --force")
	has(t, "--force", text, `Replaced MCP server "serply" from template "grep"`)
	if s, _ := load().Server("serply"); s == nil || s.Raw.URL != "https://mcp.grep.app" {
		t.Errorf("serply not replaced: %+v", s)
	}

	// --project writes <project>/.zot/mcp.json, private.
	proj := config.ProjectPath(e.project)
	text = he.ok("setup add grep --project --name code-search")
	has(t, "--project", text, `Added MCP server "code-search" from template "grep" in `+proj+".", "Run /reload-ext")
	hasNot(t, "--project", text, "Not set yet")
	if st, err := os.Stat(proj); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("project file: %v %v", st, err)
	}
	if st, err := os.Stat(filepath.Dir(proj)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("project .zot dir: %v %v", st, err)
	}
	if s, _ := load().Server("code-search"); s == nil || s.Scope != config.ScopeProject || !s.Usable() {
		t.Errorf("code-search entry: %+v", s)
	}
	// A name the rule refuses, or one that looks like a server already there, is not added.
	before, _ = os.ReadFile(proj)
	has(t, "look-alike name", he.fail("setup add grep --project --name Code-Search").Error, `looks like the server "code-search"`)
	has(t, "mixed-script name", he.fail("setup add grep --project --name c\u043ede").Error, "mixes Latin and Cyrillic")
	if after, _ := os.ReadFile(proj); string(after) != string(before) {
		t.Error("a refused name changed the project file")
	}

	// Errors.
	r = he.fail("setup add nope")
	has(t, "unknown template", r.Error, `unknown template "nope"`, "Templates: context7, fetch")
	has(t, "unknown template display", r.Display, "Templates:", "serply")
	has(t, "close template", he.fail("setup add serpl").Error, `Did you mean "serply"?`)
	has(t, "unknown option", he.fail("setup add grep --bogus").Error, `unknown setup option "--bogus"`, "usage: /mcp setup add")
	has(t, "--name last", he.fail("setup add grep --name").Error, "--name requires a value")
	has(t, "--name flag", he.fail("setup add grep --name --force").Error, "--name requires a value")
	has(t, "no template", he.fail("setup add").Error, "usage: /mcp setup add <template>")
	has(t, "two templates", he.fail("setup add grep fetch").Error, "one template at a time")
	has(t, "both scopes", he.fail("setup add grep --global --project").Error, "--global and --project exclude each other")
	has(t, "unknown setup", he.fail("setup frob").Error, `unknown setup command "frob"`)

	// A broken file is named and left alone.
	const broken = "{ \"mcpServers\": { \"a\": sk-unquoted-SECRET } }"
	if err := os.WriteFile(global, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	r = he.fail("setup add fetch")
	has(t, "broken file", r.Error, global, "nothing was changed")
	hasNot(t, "broken file", r.Error, "SECRET")
	if got, _ := os.ReadFile(global); string(got) != broken {
		t.Error("broken file modified")
	}
}
