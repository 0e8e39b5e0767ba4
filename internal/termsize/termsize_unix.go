//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package termsize

import "golang.org/x/sys/unix"

// Columns returns the width of the controlling terminal in columns, or 0 when there is
// none (zot runs headless) or it cannot be read. It is read afresh on every call, so a
// resized terminal is seen.
func Columns() int {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
