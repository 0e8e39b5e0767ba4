package bridge

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// TestServerLogLinesAreEscaped: a server's log messages are its raw output; /mcp <server>
// shows their control and invisible characters escaped.
func TestServerLogLinesAreEscaped(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	b := e.bridge(extension.GenNew)
	b.x.logs.add("s", lifecycle.LogLine{At: time.Unix(0, 0), Level: "error\x1b[2J", Logger: "db\u202e", Text: "lost\x1b]52;c;eA==\x07 it\U000E0041"})
	out := b.serverLogText("s")
	if strings.ContainsAny(out, "\x1b\x07\u202e\U000E0041") {
		t.Fatalf("/mcp s carries a raw control or invisible character: %q", out)
	}
	if !strings.Contains(out, `error\x1b[2J [db\u202e] lost\x1b]52;c;eA==\x07 it\U000e0041`) {
		t.Errorf("log line not shown escaped:\n%s", out)
	}
}

// TestNamespaceTextIsSanitized: a namespace's description carries the server's MCP
// instructions and its instructions the entry's; both reach the model in every
// register_tool frame, so neither carries a control or invisible character, whether the
// start decodes the cache or reads the startup file.
func TestNamespaceTextIsSanitized(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{
		"alpha": mergeMap(e.server("-name", "alpha", "-instructions", "Alpha\x1b]52;c;eA==\x07 echoes\u200b."),
			map[string]any{"instructions": "Prefer\x1b[2J alpha\u202e."}),
	}, map[string]any{"toolExposure": "deferred"})
	if _, errs := e.bridge(extension.GenNew).Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, start := range []string{"first start", "second start"} {
		raw, _, _ := startSessionAck(t, e, newestZot(e), nil)
		frames := mcpToolFrames(t, raw)
		if len(frames) == 0 {
			t.Fatalf("%s: no MCP tool registered", start)
		}
		for name, f := range frames {
			for _, tc := range []struct {
				field string
				got   *string
				want  string
			}{
				{"namespace_description", f.NamespaceDescription, ". Alpha]52;c;eA== echoes."},
				{"namespace_instructions", f.NamespaceInstructions, "Prefer[2J alpha."},
			} {
				if tc.got == nil || strings.ContainsAny(*tc.got, "\x1b\x07\u200b\u202e") || !strings.HasSuffix(*tc.got, tc.want) {
					t.Errorf("%s: %s %s = %q, want it sanitized, ending %q", start, name, tc.field, deref(tc.got), tc.want)
				}
			}
		}
	}
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestURLRequiredTextIsSafe: a server's "URL elicitation required" error (-32042) lists
// its URLs and reasons in a note and in the model's error. The reasons are shown
// sanitized, and a URL that carries a hidden character (a bidi override that makes
// ".exe" read as something else) is not shown, as a question's URL is not.
func TestURLRequiredTextIsSafe(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	var mu sync.Mutex
	var notes []string
	b := e.bridgeWith(func(o *Options) {
		o.Notify = func(_, msg string) { mu.Lock(); notes = append(notes, msg); mu.Unlock() }
	})
	err := mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{
		{Mode: mcp.ElicitationModeURL, URL: "https://example.com/login", Message: "Log\x1b]8;;https://evil\x07 in\u200b first"},
		{Mode: mcp.ElicitationModeURL, URL: "https://example.com/\u202egpj.exe", Message: "open it"},
	}}
	res, ok := b.urlRequired("s", "t", err)
	if !ok {
		t.Fatal("the -32042 error was not recognised")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one", notes)
	}
	for _, tc := range []struct{ what, text string }{{"note", notes[0]}, {"result", textOf(t, res)}} {
		if strings.ContainsAny(tc.text, "\x1b\x07\u200b\u202e") {
			t.Errorf("%s carries a raw control or invisible character: %q", tc.what, tc.text)
		}
		if !strings.Contains(tc.text, "https://example.com/login — Log]8;;https://evil in first") {
			t.Errorf("%s lacks the sanitized reason:\n%s", tc.what, tc.text)
		}
		if strings.Contains(tc.text, "gpj.exe") {
			t.Errorf("%s shows a URL with a hidden character:\n%s", tc.what, tc.text)
		}
	}
}

// TestRefreshNoteEscapesFailures: a background refresh's note names each server it could
// not list with the failure, which carries the server's stderr tail: escaped.
func TestRefreshNoteEscapesFailures(t *testing.T) {
	rep := RefreshReport{Failed: []string{`MCP server "s": exit status 1; last stderr: boom` + "\x1b]52;c;eA==\x07\u202e"}}
	parts, warn := rep.noteParts(commands.SurfaceZot, false)
	note := strings.Join(parts, "\n")
	if !warn || strings.ContainsAny(note, "\x1b\x07\u202e") || !strings.Contains(note, `last stderr: boom\x1b]52;c;eA==\x07\u202e`) {
		t.Errorf("note (warn %v) does not show the failure escaped: %q", warn, note)
	}
}

// TestURLRequiredIsBounded: a -32042 error of any size makes a note and a model error of
// bounded size: a few URLs, each reason cut, a URL too long to show left out, and the
// rest counted.
func TestURLRequiredIsBounded(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	var mu sync.Mutex
	var notes []string
	b := e.bridgeWith(func(o *Options) {
		o.Notify = func(_, msg string) { mu.Lock(); notes = append(notes, msg); mu.Unlock() }
	})
	var steps []mcp.ElicitationParams
	steps = append(steps, mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, URL: "https://example.com/" + strings.Repeat("a", 1<<20), Message: "long"})
	for i := range 10000 {
		steps = append(steps, mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, URL: "https://example.com/" + strconv.Itoa(i), Message: strings.Repeat("why ", 1<<10)})
	}
	res, ok := b.urlRequired("s", "t", mcp.URLElicitationRequiredError{Elicitations: steps})
	if !ok {
		t.Fatal("the -32042 error was not recognised")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tc := range []struct{ what, text string }{{"note", strings.Join(notes, "\n")}, {"result", textOf(t, res)}} {
		if len(tc.text) > 8<<10 {
			t.Errorf("the %s is %d bytes", tc.what, len(tc.text))
		}
		for _, want := range []string{"https://example.com/0 — why why", "https://example.com/2 — ", "it is 1048596 bytes long", "(and 9997 more"} {
			if !strings.Contains(tc.text, want) {
				t.Errorf("the %s lacks %q:\n%.2000s", tc.what, want, tc.text)
			}
		}
	}
}
