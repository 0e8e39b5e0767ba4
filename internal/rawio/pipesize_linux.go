//go:build linux

package rawio

import (
	"os"

	"golang.org/x/sys/unix"
)

// GrowPipe asks the kernel for a pipe buffer of at least n bytes on f (F_SETPIPE_SZ) and
// reports whether it got one. A non-blocking writer that sends megabytes at once (the
// startup registrations) otherwise stops at every 64 KiB, the default size, and waits in
// the poller for the reader to drain it; a blocking write did that inside one system call.
// The size is capped by /proc/sys/fs/pipe-max-size for unprivileged processes: a refusal
// leaves the pipe as it was.
func GrowPipe(f *os.File, n int) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	grown := false
	_ = rc.Control(func(fd uintptr) {
		cur, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		if err != nil || cur >= n {
			grown = err == nil
			return
		}
		_, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, n)
		grown = err == nil
	})
	return grown
}
