//go:build unix

package rawio

import (
	"os"

	"golang.org/x/sys/unix"
)

// Duplicate returns a non-blocking duplicate of v that Go's poller watches, when v is
// a file on a pipe or socket; nil when it is not, or cannot be duplicated. A duplicate
// even of a descriptor that is non-blocking already: the *os.File at hand may predate
// that mode (stdin and stdout can share one open file description, whose mode the other's
// duplicate just changed) and then the poller does not watch it. release closes the
// duplicate and puts the shared description back into the mode it had.
func Duplicate(v any) (*os.File, func()) {
	nothing := func() {}
	f, ok := v.(*os.File)
	if !ok {
		return nil, nothing
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nothing
	}
	fd, wasNonblocking := -1, false
	if rc.Control(func(sysfd uintptr) { fd, wasNonblocking = dupForPoll(int(sysfd)) }) != nil || fd < 0 {
		return nil, nothing
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	dup := os.NewFile(uintptr(fd), f.Name())
	return dup, func() {
		_ = dup.Close()
		if !wasNonblocking {
			// O_NONBLOCK belongs to the open file description, which f still shares.
			_ = rc.Control(func(sysfd uintptr) { _ = unix.SetNonblock(int(sysfd), false) })
		}
	}
}

// dupForPoll returns a non-blocking duplicate of fd, and whether fd was non-blocking
// before; -1 when fd is not a pipe or socket or cannot be duplicated.
func dupForPoll(fd int) (dup int, wasNonblocking bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1, false
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return -1, false
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return -1, false
	}
	d, err := unix.Dup(fd)
	if err != nil {
		return -1, false
	}
	unix.CloseOnExec(d)
	if unix.SetNonblock(d, true) != nil {
		_ = unix.Close(d)
		return -1, false
	}
	return d, fl&unix.O_NONBLOCK != 0
}
