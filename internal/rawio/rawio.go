// Package rawio moves bytes through non-blocking pipes without the Go runtime's
// system-call bookkeeping, for the pipes every tool call crosses (the host's stdin and
// stdout, a stdio server's stdin and stdout).
//
// Why: an ordinary read or write enters the runtime's "in a system call" state, and the
// first such call after the process was idle wakes the runtime's monitor thread (sysmon)
// from its deep sleep, a futex wake-up on the call's path; the woken thread then polls
// every 20 µs until the process is idle again. A process in the middle of a stdio
// connection goes idle twice per round trip, so this cost came twice per call. A read or
// write of a non-blocking descriptor returns at once, so it needs none of that: it runs
// as a raw system call inside the file's own poller wait (os.File.SyscallConn), waiting
// in Go's poller exactly as before when the pipe is empty or full. Nothing spins.
//
// What a raw call gives up: while it runs, its P is not "in a system call", so the monitor
// could not hand that P to another thread; a read or write of a non-blocking pipe returns
// within microseconds, so there is nothing to hand over. Builds with the race detector,
// msan or asan use package syscall's Read and Write instead, which tell the checker about
// the memory the call touched and the ordering a pipe gives.
package rawio

import "io"

// Reader returns a reader of r that reads with raw system calls when r is an *os.File on
// a non-blocking descriptor that Go's poller watches (os.Pipe's ends, a descriptor
// switched to non-blocking before os.NewFile); any other reader is returned unchanged.
func Reader(r io.Reader) io.Reader {
	if f := pollable(r); f != nil {
		return f
	}
	return r
}

// Writer is Reader for writing.
func Writer(w io.Writer) io.Writer {
	if f := pollable(w); f != nil {
		return f
	}
	return w
}

// WriteCloser is Writer for an io.WriteCloser; Close closes the file.
func WriteCloser(w io.WriteCloser) io.WriteCloser {
	if f := pollable(w); f != nil {
		return f
	}
	return w
}
