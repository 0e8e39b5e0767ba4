//go:build unix

// Package supervise is the tiny process that sits between the bridge and one stdio MCP
// server. It starts the real server command as the leader of a fresh process group with the
// inherited stdin/stdout/stderr (no copying, so a call costs nothing extra), and makes sure
// the whole group dies when either side goes away:
//
//   - the server exits: every remaining member of the group (grandchildren such as the node
//     process under npx) is killed and the supervisor exits with the server's status;
//   - the bridge dies, even by SIGKILL: Linux delivers the parent-death signal (SIGTERM) and,
//     as a fallback on every Unix, the supervisor notices that its parent changed; it then
//     signals the group with SIGTERM, waits briefly, and sends SIGKILL;
//   - the bridge stops the server: it closes stdin, then sends the supervisor SIGTERM, which
//     takes the same group-wide path.
//
// Without this layer a grandchild that ignores stdin EOF outlives a killed bridge.
package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Arg is the argv[1] that selects supervisor mode in the bridge binary (and in test
// binaries that call MaybeRun from TestMain).
const Arg = "__supervise"

// termGrace is how long group members get between SIGTERM and SIGKILL when the bridge is gone.
const termGrace = 300 * time.Millisecond

// parentPoll is how often the supervisor checks whether the bridge is still its parent.
const parentPoll = 250 * time.Millisecond

// MaybeRun runs the supervisor and exits when os.Args selects it; otherwise it returns.
// Call it first thing in main (and in TestMain of packages that spawn servers).
func MaybeRun() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:], os.Stderr))
	}
}

// Main runs command args[0] with args[1:] under supervision and returns the exit status.
func Main(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "supervise: no command given")
		return 2
	}
	parent := os.Getppid()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "cannot start %q: %v\n", args[0], describeStartErr(err))
		return 127
	}
	// The server's pipes now live in the child; drop ours so EOF travels as it should.
	_ = os.Stdin.Close()
	_ = os.Stdout.Close()

	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(parentPoll)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			killGroup(pgid, syscall.SIGKILL)
			return exitCode(err)
		case <-sigs:
			return terminate(pgid, done)
		case <-tick.C:
			if os.Getppid() != parent {
				return terminate(pgid, done)
			}
		}
	}
}

// terminate asks the whole group to stop, then forces it.
func terminate(pgid int, done <-chan error) int {
	killGroup(pgid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(termGrace):
	}
	// Grandchildren may ignore SIGTERM even when the server itself has gone.
	killGroup(pgid, syscall.SIGKILL)
	return 143
}

// killGroup signals every process of the server's group.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 1
}

func describeStartErr(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("%w (is it installed and on PATH?)", err)
	}
	return err
}
