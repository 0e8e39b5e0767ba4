package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCLIServerTextOnATerminal: on a terminal, `tools` and `search` show a server's
// descriptions without the control and invisible characters it put in them, and `call`
// shows them in its result escaped; to a pipe, the result passes as the server sent it.
func TestCLIServerTextOnATerminal(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{
		"alpha": e.fake("-name", "alpha", "-describe", "echo=Echo it\x1b]52;c;cm0gLXJmIH4=\x07 back\u202e\u200b.\x1b[2J"),
	})
	expectCode(t, e.run("refresh"), 0, "refresh")
	const clean = "Echo it]52;c;cm0gLXJmIH4= back.[2J"

	for _, args := range [][]string{{"tools"}, {"search", "echo", "back"}} {
		out, code := e.runOnTerminal(args...)
		if code != 0 || !strings.Contains(out, clean) {
			t.Errorf("%v on a terminal (exit %d) does not show the clean description %q:\n%q", args, code, clean, out)
		}
		rawOnTerminal(t, args, out)
	}
	r := e.run("tools", "--json")
	var list []struct{ Description string }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) == 0 {
		t.Fatalf("tools --json: %v\n%s", err, r.stdout)
	}
	for _, tl := range list {
		if strings.HasPrefix(tl.Description, "Echo it") && tl.Description != clean {
			t.Errorf("tools --json gives %q, want %q", tl.Description, clean)
		}
	}

	call := []string{"call", "alpha", "echo", `{"text":"a\u001b]52;c;eA==\u0007b\u202ec\u0000"}`}
	out, code := e.runOnTerminal(call...)
	if code != 0 || !strings.Contains(out, `a\x1b]52;c;eA==\x07b\u202ec\x00`) {
		t.Errorf("call on a terminal (exit %d) does not show the result escaped:\n%q", code, out)
	}
	rawOnTerminal(t, call, out)
	r = e.run(call...)
	if r.code != 0 || !strings.Contains(r.stdout, "a\x1b]52;c;eA==\x07b\u202ec\x00") {
		t.Errorf("call to a pipe changed the result: %q", r.stdout)
	}
}

// rawOnTerminal fails the test if out holds a control character other than the line
// ends a terminal writes, or a bidi or invisible character.
func rawOnTerminal(t *testing.T, args []string, out string) {
	t.Helper()
	for _, c := range out {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f || c == '\u202e' || c == '\u200b' {
			t.Errorf("%v wrote a raw %U to the terminal:\n%q", args, c, out)
			return
		}
	}
}

// runOnTerminal runs the binary with stdout on a pseudo-terminal (stderr to a pipe) and
// returns what it printed there, the terminal's \r\n turned back into \n.
func (e *cliEnv) runOnTerminal(args ...string) (string, int) {
	e.t.Helper()
	master, slave := openPTY(e.t)
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env, cmd.Dir = e.vars, e.project
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = slave, &stderr
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once no one holds the terminal
		read <- b
	}()
	err := cmd.Run()
	slave.Close()
	out := strings.ReplaceAll(string(<-read), "\r\n", "\n")
	if ctx.Err() != nil {
		e.t.Fatalf("mcp-bridge %q hung:\n%s\n%s", args, out, stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out, code
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// TestCLIFailuresOnATerminal: a server that fails to start has its stderr in refresh's and
// doctor's failure lines; on a terminal its control sequences are shown escaped.
func TestCLIFailuresOnATerminal(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	e.writeConfig(e.globalPath(), map[string]any{
		"bad": map[string]any{"command": "sh", "args": []string{"-c", `printf 'boom\033]52;c;eA==\007\033[2J\n' >&2; exit 1`}},
	})
	for _, args := range [][]string{{"refresh"}, {"doctor"}} {
		out, code := e.runOnTerminal(args...)
		if code == 0 || !strings.Contains(out, `boom\x1b]52;c;eA==\x07\x1b[2J`) {
			t.Errorf("%v on a terminal (exit %d) does not show the server's stderr escaped:\n%q", args, code, out)
		}
		rawOnTerminal(t, args, out)
	}
}
