package commands

import (
	"strings"
	"testing"
)

// TestDetailEscapesServerOutput: a server's stderr lines and its last error are its raw
// output; /mcp <server> shows their control and invisible characters escaped.
func TestDetailEscapesServerOutput(t *testing.T) {
	s := &fakeServer{cfg: stdio("noisy"), st: Status{State: StateParked, LastError: "boom\x1b]52;c;eA==\x07",
		Stderr: []string{"\x1b[31merror\x1b[0m: bad\u202e", "clear\x1b[2J"}, StderrSeen: 2}}
	out, ok := Detail(newFakeHost(s), "noisy")
	if !ok {
		t.Fatal("no detail")
	}
	for _, r := range out {
		if r < 0x20 && r != '\n' || r == '\u202e' {
			t.Fatalf("/mcp noisy carries %U:\n%q", r, out)
		}
	}
	for _, want := range []string{`last error: boom\x1b]52;c;eA==\x07`, `    \x1b[31merror\x1b[0m: bad\u202e`, `    clear\x1b[2J`} {
		if !strings.Contains(out, want) {
			t.Errorf("/mcp noisy lacks %q:\n%s", want, out)
		}
	}
}
