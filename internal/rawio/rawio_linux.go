//go:build linux

package rawio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// file is a non-blocking *os.File read and written with raw system calls. The functions
// handed to the poller are made once, with their arguments and results in the struct, so a
// read or a write allocates nothing; rmu and wmu keep concurrent readers (writers) from
// sharing those fields.
type file struct {
	f  *os.File
	rc syscall.RawConn

	rmu   sync.Mutex
	rbuf  []byte
	rn    int
	rerr  syscall.Errno
	read  func(fd uintptr) bool
	wmu   sync.Mutex
	wbuf  []byte
	wn    int
	werr  syscall.Errno
	write func(fd uintptr) bool
}

func newFile(f *os.File, rc syscall.RawConn) *file {
	x := &file{f: f, rc: rc}
	x.read = x.readOnce
	x.write = x.writeAll
	return x
}

// pollable returns v as a file when it is an *os.File that Go's poller watches, on a
// non-blocking descriptor; else nil.
func pollable(v any) *file {
	f, ok := v.(*os.File)
	if !ok {
		return nil
	}
	// Only a file the poller watches takes a deadline; a raw read of any other would
	// have nothing to wait in when the pipe is empty.
	if f.SetDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = err == nil && fl&unix.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil
	}
	return newFile(f, rc)
}

// Read reads what the pipe holds, up to len(p), waiting in the poller while it is empty.
func (f *file) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	f.rmu.Lock()
	defer f.rmu.Unlock()
	f.rbuf, f.rn, f.rerr = p, 0, 0
	err := f.rc.Read(f.read)
	n, errno := f.rn, f.rerr
	f.rbuf = nil
	switch {
	case err != nil:
		return 0, f.closed("read")
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: f.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readOnce is one read of f.rbuf; false when the pipe is empty (the poller waits, then
// calls it again).
func (f *file) readOnce(fd uintptr) bool {
	p := f.rbuf
	for {
		r, e := rawRead(fd, p)
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		f.rn, f.rerr = int(r), e
		return true
	}
}

// Write writes all of p, waiting in the poller while the pipe is full.
func (f *file) Write(p []byte) (int, error) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.wbuf, f.wn, f.werr = p, 0, 0
	err := f.rc.Write(f.write)
	n, errno := f.wn, f.werr
	f.wbuf = nil
	switch {
	case err != nil:
		return n, f.closed("write")
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: f.f.Name(), Err: errno}
	}
	return n, nil
}

// writeAll writes the rest of f.wbuf; false when the pipe is full (the poller waits, then
// calls it again).
func (f *file) writeAll(fd uintptr) bool {
	p := f.wbuf
	for f.wn < len(p) {
		r, e := rawWrite(fd, p[f.wn:])
		switch e {
		case 0:
			f.wn += int(r)
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			f.werr = e
			return true
		}
	}
	return true
}

// rawRead is read(2) of fd into p as a raw system call (see checked).
func rawRead(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	if checked {
		n, err := syscall.Read(int(fd), p)
		return errnoOf(n, err)
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return r, e
}

// rawWrite is write(2) of p to fd as a raw system call (see checked).
func rawWrite(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	if checked {
		n, err := syscall.Write(int(fd), p)
		return errnoOf(n, err)
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return r, e
}

// errnoOf turns package syscall's result back into a raw one.
func errnoOf(n int, err error) (uintptr, syscall.Errno) {
	if err != nil {
		e, _ := err.(syscall.Errno)
		return 0, e
	}
	return uintptr(n), 0
}

// closed is the error of a read or write the poller refused: the only failure it reports
// itself (no deadlines are set on these files) is the file being closed.
func (f *file) closed(op string) error {
	return &os.PathError{Op: op, Path: f.f.Name(), Err: os.ErrClosed}
}

// Close closes the file.
func (f *file) Close() error { return f.f.Close() }
