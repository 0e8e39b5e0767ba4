package catalog

import (
	"os"

	"golang.org/x/sys/unix"
)

// punchHole gives a dead block's bytes back to the file system; the file's size and
// every other block stay as they are. A file system that cannot punch holes keeps them.
func punchHole(f *os.File, at, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.Fallocate(int(fd), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, at, n)
	})
}
