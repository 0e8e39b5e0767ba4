package session

import (
	"os/exec"
	"syscall"
)

// sysProcAttr: Windows has no process groups in the Unix sense; servers are stopped by
// closing stdin and then killing the process.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalTree kills the process (Windows cannot deliver SIGTERM).
func signalTree(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
