package commands

import (
	"context"
	"errors"
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

// TestAnswersEscapeServerOutput: a server's failure carries its own words (its stderr
// tail, an error it answered); wherever /mcp shows one, in the dashboard, in start's and
// refresh's answers and in their error lines, its control and invisible characters are
// escaped.
func TestAnswersEscapeServerOutput(t *testing.T) {
	const raw, escaped = "fatal\x1b]52;c;eA==\x07 db\u202e", `fatal\x1b]52;c;eA==\x07 db\u202e`
	crashy := &fakeServer{cfg: stdio("crashy"), st: Status{State: StateAsleep, Failures: 1, LastError: "exit status 3; last stderr: " + raw},
		startErr: errors.New("exit status 3; last stderr: " + raw)}
	h := newFakeHost(crashy)
	h.failed = []string{`MCP server "crashy": exit status 3; last stderr: ` + raw}
	for _, line := range []string{"", "start crashy", "restart crashy", "refresh crashy"} {
		out, err := Line(context.Background(), h, line)
		texts := map[string]string{"answer": out}
		if err != nil {
			texts["error"] = err.Error()
		}
		for what, text := range texts {
			if strings.ContainsAny(text, "\x1b\x07\u202e") {
				t.Errorf("/mcp %s: the %s carries a raw control or invisible character: %q", line, what, text)
			}
		}
		if !strings.Contains(out+"\n"+texts["error"], escaped) {
			t.Errorf("/mcp %s shows the server's words nowhere escaped:\n%s\n%s", line, out, texts["error"])
		}
	}
}
