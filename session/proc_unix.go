//go:build unix && !linux

package session

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the server (or its supervisor) in a process group of its own. There is
// no parent-death signal outside Linux; the supervisor polls its parent instead.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalTree signals the process group led by cmd's process.
func signalTree(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
