//go:build unix

package extension

import (
	"io"

	"github.com/zot-mcp/mcp-bridge/internal/rawio"
)

// pollable returns a reader of in that waits for data in Go's poller instead of in a
// blocked system call, when in is a pipe or socket in blocking mode (the host's stdin): a
// blocked read holds an OS thread, so every host frame would wake that thread and then
// hand the frame to another one to run. The reader reads a duplicate of in's descriptor
// switched to non-blocking mode; release closes the duplicate, which also ends a read in
// progress, and puts the shared descriptor back into blocking mode. A non-blocking file
// is read with raw system calls (rawio). Anything else is returned as it is, with a
// release that does nothing.
func pollable(in io.Reader) (r io.Reader, release func()) {
	f, release := rawio.Duplicate(in)
	if f == nil {
		return in, release
	}
	return rawio.Reader(f), release
}

// pollableOut is pollable for the host's stdout: frames are written by raw system calls
// on a non-blocking duplicate, waiting in Go's poller while the pipe is full. The pipe is
// grown to outPipeBytes where the kernel allows, so that the startup registrations
// (megabytes in one write) wait in the poller a few times rather than at every 64 KiB.
func pollableOut(out io.Writer) (w io.Writer, release func()) {
	f, release := rawio.Duplicate(out)
	if f == nil {
		return out, release
	}
	rawio.GrowPipe(f, outPipeBytes)
	return rawio.Writer(f), release
}

// outPipeBytes is the stdout pipe buffer asked for: Linux's default cap for unprivileged
// processes (/proc/sys/fs/pipe-max-size).
const outPipeBytes = 1 << 20
