package commands

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestDashboardWidth: /mcp is laid out for the width the host gives (a terminal of 60, 80
// or 100 columns less the tag zot puts before each line): no line is longer, no word of a
// server's error is cut, the row's note ends with the way to act on it, and the command
// list breaks between commands, not inside one.
func TestDashboardWidth(t *testing.T) {
	longErr := `MCP server "net": cannot reach https://mcp.example.com/sse: dial tcp: lookup mcp.example.com: no such host; ` +
		strings.Repeat("the server wrote more and more about what went wrong ", 6) + "check the connection and the URL"
	net := &fakeServer{cfg: stdio("net"), st: Status{State: StateParked, LastError: longErr}}
	proj := &fakeServer{cfg: stdio("proj"), st: Status{State: StateAsleep}, pending: true}
	h := newFakeHost(net, proj)
	for _, cols := range []int{60, 80, 100} {
		width := cols - len("[mcp-bridge] ")
		r := Run(context.Background(), h, extension.Command{Name: Name, Width: width})
		out := r.Display
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("%d columns: a line of %d: %q", cols, n, l)
			}
		}
		words := strings.Fields(out)
		for _, w := range strings.Fields(longErr[len(`MCP server "net": `):]) {
			if !slices.Contains(words, w) && !slices.Contains(words, w+"…") && !strings.Contains(out, "…") {
				t.Errorf("%d columns: the error lost %q:\n%s", cols, w, out)
			}
		}
		for _, w := range words {
			if strings.HasSuffix(w, "…") && !slices.Contains(strings.Fields(longErr), strings.TrimSuffix(w, "…")) {
				t.Errorf("%d columns: a word of the error was cut: %q\n%s", cols, w, out)
			}
		}
		for _, want := range []string{"all of it: /mcp net", "approve: /mcp trust proj", "start|stop|restart|refresh <server|all>", "trust|untrust <server|all>"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("%d columns: the dashboard lacks %q:\n%s", cols, want, out)
			}
		}
		for _, item := range []string{"start|stop|restart|refresh <server|all>", "login|logout <server>", "trust|untrust <server|all>"} {
			if !strings.Contains(out, item) {
				t.Errorf("%d columns: %q is broken across lines:\n%s", cols, item, out)
			}
		}
	}
}
