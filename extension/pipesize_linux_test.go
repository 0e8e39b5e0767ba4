//go:build linux

package extension

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Run grows the host's stdout pipe (up to outPipeBytes) so that the startup registrations,
// megabytes in one write, do not stop at every 64 KiB.
func TestRunGrowsStdoutPipe(t *testing.T) {
	inR, inW, outR, outW := hostPipes(t)
	size := func() int {
		n, err := unix.FcntlInt(outW.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		t.Fatal(err)
	}
	if limit, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || limit < outPipeBytes {
		t.Skipf("pipe-max-size here (%s) is below the %d bytes Run asks for", strings.TrimSpace(string(b)), outPipeBytes)
	}
	if size() >= outPipeBytes {
		t.Fatalf("setup: the pipe already holds %d bytes", size())
	}
	echoOverRun(t, inR, inW, outW, readLines(outR), func() {
		if got := size(); got < outPipeBytes {
			t.Fatalf("stdout pipe holds %d bytes while Run serves, want at least %d", got, outPipeBytes)
		}
	})
}
