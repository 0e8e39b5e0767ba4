package session

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the server (or its supervisor) in a process group of its own, so
// terminal signals do not reach it and the bridge can signal the whole group, and asks
// the kernel to send SIGTERM when the bridge dies, even by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// signalTree signals the process group led by cmd's process.
func signalTree(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
