//go:build unix

package exttest

import (
	"os/exec"
	"syscall"
)

// noTerminal starts cmd in a session of its own, without a controlling terminal: what an
// extension lays out for then does not depend on the terminal the tests run in.
func noTerminal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
