package main

// What the CLI says: doctor, failures, search as the host sees it, alwaysLoad.

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLIDoctorSaysEachThingOnce: doctor's "ok: N tools" are the tools the cache keeps
// (tools and search find them afterwards, with no refresh), a config error is printed
// once (on its server's line), a note that arrives while servers start comes after the
// list, not inside it, and nothing from mcp-go reaches the terminal.
func TestCLIDoctorSaysEachThingOnce(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{
		"alpha":  e.fake("-list-changed-after", "1"),
		"needvr": map[string]any{"command": "x", "env": map[string]any{"A": "${DOCTOR_UNSET_VAR}"}},
	})
	r := e.run("doctor")
	expectCode(t, r, 1, "doctor with a config error")
	if n := strings.Count(r.all(), "DOCTOR_UNSET_VAR is not set"); n != 1 {
		t.Errorf("the config error is printed %d times, want once:\n%s", n, r.all())
	}
	if !strings.Contains(r.stdout, "alpha") || !strings.Contains(r.stdout, "ok: ") {
		t.Fatalf("doctor did not list alpha as ok:\n%s", r.all())
	}
	if strings.Contains(r.stderr, "changed its tools") || strings.Contains(r.all(), "Error writing response") || strings.Contains(r.all(), "level=ERROR") {
		t.Errorf("a note or a library log line went to the terminal while servers were listed:\n%s", r.stderr)
	}
	// Every server line comes before any note.
	lines := strings.Split(r.stdout, "\n")
	lastServer, firstNote := -1, len(lines)
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  alpha") || strings.HasPrefix(l, "  needvr"):
			lastServer = i
		case strings.HasPrefix(l, "Note: ") && i < firstNote:
			firstNote = i
		}
	}
	if firstNote < lastServer {
		t.Errorf("a note stands among the server lines:\n%s", r.stdout)
	}

	tools := e.run("tools", "--server", "alpha")
	expectCode(t, tools, 0, "tools after doctor")
	if !strings.Contains(tools.stdout, "mcp__alpha__") {
		t.Errorf("the tools doctor listed were not kept in the cache:\n%s", tools.all())
	}
	search := e.run("search", "echo")
	if strings.Contains(search.all(), "No MCP tools are cached yet") || !strings.Contains(search.stdout, `server="alpha" tool="echo"`) {
		t.Errorf("search after doctor does not find alpha's tools:\n%s", search.all())
	}
}

// TestCLIFailuresNameTheCause: a server that cannot run is never reported as "has no
// tool" or "run refresh": each command names the unset variable, the missing command,
// or the exit status with the first stderr line.
func TestCLIFailuresNameTheCause(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{
		"needvar": map[string]any{"command": "x", "env": map[string]any{"A": "${NEEDVAR_UNSET_X}"}},
		"crashy":  e.fake("-exit-on-start"),
		"nobin":   map[string]any{"command": "/nonexistent/dir/mcp-server"},
	})
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"call", "needvar", "echo"}, []string{"NEEDVAR_UNSET_X is not set"}},
		{[]string{"tools", "--server", "needvar"}, []string{"NEEDVAR_UNSET_X is not set"}},
		{[]string{"refresh", "--server", "needvar"}, []string{"NEEDVAR_UNSET_X is not set"}},
		{[]string{"call", "crashy", "echo"}, []string{"exit status 1", "fatal: boom"}},
		{[]string{"refresh", "--server", "crashy"}, []string{"exit status 1", "fatal: boom"}},
		{[]string{"call", "nobin", "echo"}, []string{"/nonexistent/dir/mcp-server", "no such file"}},
	} {
		r := e.run(c.args...)
		expectCode(t, r, 1, strings.Join(c.args, " "))
		for _, w := range c.want {
			if !strings.Contains(r.all(), w) {
				t.Errorf("%v lacks %q:\n%s", c.args, w, r.all())
			}
		}
		for _, bad := range []string{"has no tool", "run `mcp-bridge refresh`", "disabled or has a config error"} {
			if strings.Contains(r.all(), bad) {
				t.Errorf("%v hides the cause behind %q:\n%s", c.args, bad, r.all())
			}
		}
	}
}

// TestCLISearchAsTheHostSeesIt: CLI search answers in the form the released zot's model
// gets (search + mcp__call_tool) unless asked for a newer zot's, and never HTML-escapes
// the example's placeholders.
func TestCLISearchAsTheHostSeesIt(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{"alpha": e.fake()})
	expectCode(t, e.run("refresh"), 0, "refresh")
	r := e.run("search", "echo")
	expectCode(t, r, 0, "search")
	if !strings.Contains(r.stdout, "mcp__call_tool") || strings.Contains(r.stdout, "call them directly by name") {
		t.Errorf("search on the released zot's terms:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, `\u003c`) {
		t.Errorf("the example is HTML-escaped:\n%s", r.stdout)
	}
	r = e.run("search", "echo", "--zot", "newer")
	expectCode(t, r, 0, "search --zot newer")
	if !strings.Contains(r.stdout, "call them directly by name") {
		t.Errorf("search --zot newer:\n%s", r.stdout)
	}
	r = e.run("search", "echo", "--zot", "v2")
	expectCode(t, r, 2, "search --zot v2")
	if !strings.Contains(r.stderr, "--zot must be released or newer") {
		t.Errorf("bad --zot: %s", r.stderr)
	}
}

// TestCLIDoctorReportsAlwaysLoad: doctor says how many bytes of visible registrations the
// servers' "alwaysLoad" adds against its budget, warns (without failing) when the tools it
// names do not all fit, and --json carries the same numbers.
func TestCLIDoctorReportsAlwaysLoad(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	alpha := e.fake("-name", "alpha")
	alpha["alwaysLoad"] = []string{"echo"}
	e.writeConfig(e.globalPath(), map[string]any{"alpha": alpha})
	r := e.run("doctor")
	expectCode(t, r, 0, "doctor with alwaysLoad within its budget")
	if !strings.Contains(r.stdout, "alwaysLoad: 1 tool visible from the first request") || !strings.Contains(r.stdout, "of the 32 KiB budget") ||
		strings.Contains(r.stdout, "WARNING") {
		t.Fatalf("doctor does not report alwaysLoad's budget:\n%s", r.all())
	}

	many := e.fake("-name", "many", "-tools", "300")
	many["alwaysLoad"] = true
	e.writeConfig(e.globalPath(), map[string]any{"alpha": alpha, "many": many})
	r = e.run("doctor")
	expectCode(t, r, 0, "doctor with alwaysLoad over its budget (a warning)")
	if !strings.Contains(r.stdout, "WARNING: ") || !strings.Contains(r.stdout, "stay behind mcp__search_tools: mcp__many__") {
		t.Fatalf("doctor does not warn that alwaysLoad is over its budget:\n%s", r.all())
	}
	j := e.run("doctor", "--json")
	var rep struct {
		AlwaysLoad *struct {
			Tools, Bytes, Budget int
			Over                 []string
		} `json:"alwaysLoad"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || rep.AlwaysLoad == nil {
		t.Fatalf("doctor --json: %v\n%s", err, j.stdout)
	}
	if a := rep.AlwaysLoad; a.Tools < 2 || a.Bytes > a.Budget || a.Budget != 32<<10 || len(a.Over) == 0 || a.Tools+len(a.Over) != 1+313 {
		t.Fatalf("doctor --json alwaysLoad: %+v", *a)
	}
}
