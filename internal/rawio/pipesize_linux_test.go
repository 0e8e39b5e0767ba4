//go:build linux

package rawio

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// pipeMax is the largest pipe buffer an unprivileged process may ask for.
func pipeMax(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGrowPipe(t *testing.T) {
	limit := pipeMax(t)
	tests := []struct {
		name string
		want int
		ok   bool
	}{
		{"to 256 KiB", 256 << 10, 256<<10 <= limit},
		{"to the limit", limit, true},
		{"past the limit", 2 * limit, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			before := pipeSize(t, w)
			if got := GrowPipe(w, tt.want); got != tt.ok {
				t.Fatalf("GrowPipe(%d) = %v, want %v (limit %d)", tt.want, got, tt.ok, limit)
			}
			size := pipeSize(t, w)
			switch {
			case tt.ok && size < tt.want:
				t.Fatalf("pipe holds %d bytes after growing to %d", size, tt.want)
			case !tt.ok && size != before:
				t.Fatalf("a refused grow changed the pipe from %d to %d bytes", before, size)
			}
		})
	}
}
