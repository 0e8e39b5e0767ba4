package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// screenGuard bounds every wait for the screen: a guard against hangs on a loaded machine,
// never the measure of a test.
const screenGuard = 30 * time.Second

// zotScreen is the real zot running the bridge in a tmux pane of a fixed size.
type zotScreen struct {
	t      *testing.T
	tmux   string
	socket string
	cols   int
}

// startZotScreen starts zot (from PATH) in a detached tmux pane of cols×50 with the bridge as
// its one extension, in project, with a fresh ZOT_HOME. It skips without zot or tmux.
func startZotScreen(t *testing.T, zotHome, project string, cols int) *zotScreen {
	t.Helper()
	zot, err := exec.LookPath("zot")
	if err != nil {
		t.Skip("no zot on PATH: this needs the real zot binary")
	}
	tm, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux on PATH: the terminal test draws zot in a tmux pane")
	}
	if runtime.GOOS == "windows" {
		t.Skip("tmux runs on POSIX systems")
	}
	extDir := filepath.Join(t.TempDir(), "ext")
	manifest, _ := json.Marshal(map[string]string{"name": bridge.ExtensionName, "version": "test",
		"exec": testutil.BuildBinary(t, "github.com/zot-mcp/mcp-bridge")})
	if err := os.MkdirAll(extDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(extDir, "extension.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &zotScreen{t: t, tmux: tm, socket: "mcp-bridge-test-" + testutil.NewMarker(t), cols: cols}
	// A made-up key: the TUI starts without its login dialog and no prompt is ever sent.
	// The proxies point at a closed loopback port, so zot's own requests (a release
	// build's update check) fail at once instead of leaving the machine.
	env := []string{"ZOT_HOME=" + zotHome, "ANTHROPIC_API_KEY=test-key-never-used", "MCP_BRIDGE_LOG=debug",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=", "TERM=xterm-256color"}
	shell := "cd " + shQuote(project) + " && exec env " + shQuoteAll(env) + " " + shQuote(zot) + " --ext " + shQuote(extDir)
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "zot", "-x", fmt.Sprint(cols), "-y", "50", shell)
	t.Cleanup(func() { _ = exec.Command(s.tmux, "-L", s.socket, "kill-server").Run() })
	return s
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shQuoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = shQuote(s)
	}
	return strings.Join(q, " ")
}

// run runs one tmux command on the test's own server.
func (s *zotScreen) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// lines is what the pane shows now, one string per row.
func (s *zotScreen) lines() []string {
	return strings.Split(strings.TrimRight(s.run("capture-pane", "-p", "-t", "zot"), "\n"), "\n")
}

// waitFor polls the pane (observing another program: there is no event to wait on) until
// ok holds for its rows, and returns them; it fails the test after screenGuard.
func (s *zotScreen) waitFor(what string, ok func([]string) bool) []string {
	s.t.Helper()
	deadline := time.Now().Add(screenGuard)
	for {
		l := s.lines()
		if ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("after %s the pane still does not show %s:\n%s", screenGuard, what, strings.Join(l, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shows is a waitFor condition: some row contains text.
func shows(text string) func([]string) bool {
	return func(l []string) bool {
		for _, r := range l {
			if strings.Contains(r, text) {
				return true
			}
		}
		return false
	}
}

// typeKeys sends text one key at a time, as a person types, each after the pane shows the
// one before in the input row.
func (s *zotScreen) typeKeys(text string) {
	s.t.Helper()
	for i, r := range text {
		s.run("send-keys", "-t", "zot", "-l", string(r))
		typed := "▌ " + text[:i+utf8.RuneLen(r)]
		s.waitFor(fmt.Sprintf("%q in the input row", typed), func(l []string) bool {
			for _, row := range l {
				if strings.TrimRight(row, " ") == typed {
					return true
				}
			}
			return false
		})
	}
}

// tagged returns the text of a message zot shows behind tag, row by row, and fails the
// test on a row the terminal's edge may have cut (one that reaches the last column).
func (s *zotScreen) tagged(rows []string, tag string) string {
	s.t.Helper()
	var text []string
	for _, r := range rows {
		r = strings.TrimRight(r, " ")
		if !strings.HasPrefix(r, tag) {
			continue
		}
		if n := utf8.RuneCountInString(r); n >= s.cols {
			s.t.Errorf("a row of %d columns reaches the edge of the %d-column terminal: %q", n, s.cols, r)
		}
		text = append(text, strings.TrimPrefix(r, tag))
	}
	return strings.Join(strings.Fields(strings.Join(text, " ")), " ")
}

// TestZotScreen runs the released zot in an 80-column terminal, as a user does, with an
// unapproved project server and a broken global entry: the startup note is on screen
// within 2 s of zot's first frame, released by session_start; /mcp typed key by key shows
// its answer without another key; and no row of either message is cut by the terminal's
// edge, every word of the way to fix things is on screen. It skips without zot on PATH
// (build it as the notes on this test say: go build ./cmd/zot of zot v0.1.62).
func TestZotScreen(t *testing.T) {
	zotHome, project := t.TempDir(), t.TempDir()
	// The servers never run (one awaits approval, one is broken): a short command keeps
	// their rows whole, where a long path would have to be cut.
	fake := "proj-server"
	write := func(path string, v any) {
		b, _ := json.Marshal(v)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(project, ".zot", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": fake, "args": []string{"-name", "proj"}}}})
	write(filepath.Join(zotHome, "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"broken": map[string]any{"command": "broken-server", "env": map[string]any{"TOKEN": "${MCP_BRIDGE_TEST_UNSET_TOKEN}"}}}})

	s := startZotScreen(t, zotHome, project, 80)
	s.waitFor("zot's welcome", shows("i'm zot"))
	drawn := time.Now()
	rows := s.waitFor("the approval note", shows("[mcp-bridge] MCP: approve with /mcp trust proj"))
	if took := time.Since(drawn); took > 2*time.Second {
		t.Errorf("the approval note came %v after zot's first frame, want within 2s", took)
	}
	note := s.tagged(rows, "["+bridge.ExtensionName+"] ")
	for _, want := range []string{
		"MCP: approve with /mcp trust proj (in a terminal: mcp-bridge trust proj);",
		"proj (runs `" + fake + " -name proj`)",
		"MCP config: fix " + filepath.Join(zotHome, "mcp.json") + `: server "broken":`,
		"environment variable MCP_BRIDGE_TEST_UNSET_TOKEN is not set (set it or use ${MCP_BRIDGE_TEST_UNSET_TOKEN:-default}); then /reload-ext",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("the startup note on screen lacks %q:\n%s", want, note)
		}
	}
	logs, err := os.ReadFile(filepath.Join(zotHome, "logs", "ext-"+bridge.ExtensionName+".log"))
	if err != nil || !strings.Contains(string(logs), `"after":"session_start"`) {
		t.Errorf("the notes did not go out after session_start (%v):\n%s", err, logs)
	}

	// zot redraws once by itself when the version leaves its banner; type after that, so
	// that only the bridge can make the answer appear.
	s.waitFor("the banner without the version", shows("i'm zot. yet another"))
	s.typeKeys("/mcp")
	// zot lists the command with its description, cut at the edge like everything else.
	for _, r := range s.lines() {
		if r = strings.TrimRight(r, " "); strings.Contains(r, "MCP servers:") &&
			(utf8.RuneCountInString(r) >= s.cols || !strings.HasSuffix(r, "/mcp help")) {
			t.Errorf("the description of /mcp does not fit the %d-column terminal: %q", s.cols, r)
		}
	}
	s.run("send-keys", "-t", "zot", "Enter")
	rows = s.waitFor("the /mcp dashboard, with no key pressed after Enter", shows("MCP servers (2)"))
	dash := s.tagged(rows, "[mcp] ")
	for _, want := range []string{
		"proj needs approval 0 tools (project) — runs `" + fake + " -name proj`; approve: /mcp trust proj",
		"broken config error",
		"Commands: /mcp <server> · start|stop|restart|refresh <server|all> · login|logout <server> · trust|untrust <server|all> · setup|help",
	} {
		if !strings.Contains(dash, want) {
			t.Errorf("the dashboard on screen lacks %q:\n%s", want, strings.Join(rows, "\n"))
		}
	}
}
