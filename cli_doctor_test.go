package main

import (
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
	if strings.Contains(search.all(), "No MCP tools are cached yet") || !strings.Contains(search.stdout, "mcp__alpha__") {
		t.Errorf("search after doctor does not find alpha's tools:\n%s", search.all())
	}
}
