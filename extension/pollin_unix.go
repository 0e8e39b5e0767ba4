//go:build unix

package extension

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns a reader of in that waits for data in Go's poller instead of in a
// blocked system call, when in is a pipe or socket in blocking mode (the host's stdin): a
// blocked read holds an OS thread, so every host frame would wake that thread and then
// hand the frame to another one to run. The reader reads a duplicate of in's descriptor
// switched to non-blocking mode; release closes the duplicate, which also ends a read in
// progress, and puts the shared descriptor back into blocking mode. Anything else is
// returned as it is, with a release that does nothing.
func pollable(in io.Reader) (r io.Reader, release func()) {
	nothing := func() {}
	f, ok := in.(*os.File)
	if !ok {
		return in, nothing
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return in, nothing
	}
	fd := -1
	if rc.Control(func(sysfd uintptr) { fd = dupForPoll(int(sysfd)) }) != nil || fd < 0 {
		return in, nothing
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	dup := os.NewFile(uintptr(fd), f.Name())
	return dup, func() {
		_ = dup.Close()
		// O_NONBLOCK belongs to the open file description, which in still shares.
		_ = rc.Control(func(sysfd uintptr) { _ = unix.SetNonblock(int(sysfd), false) })
	}
}

// dupForPoll returns a non-blocking duplicate of fd, or -1 when fd is not a pipe or socket
// or is non-blocking already (then Go polls it without help).
func dupForPoll(fd int) int {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return -1
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		return -1
	}
	d, err := unix.Dup(fd)
	if err != nil {
		return -1
	}
	unix.CloseOnExec(d)
	if unix.SetNonblock(d, true) != nil {
		_ = unix.Close(d)
		return -1
	}
	return d
}
