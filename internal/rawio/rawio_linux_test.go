//go:build linux

package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

// Only files the poller watches in non-blocking mode are read and written raw; anything
// else passes through as it is.
func TestWrapsOnlyPolledNonblockingFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T) any
		raw  bool
	}{
		{"pipe read end", func(t *testing.T) any { r, _ := pipe(t); return r }, true},
		{"pipe write end", func(t *testing.T) any { _, w := pipe(t); return w }, true},
		{"pipe put into blocking mode", func(t *testing.T) any { r, _ := pipe(t); _ = r.Fd(); return r }, false},
		{"regular file", func(t *testing.T) any {
			f, err := os.CreateTemp(t.TempDir(), "f")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		}, false},
		{"not a file", func(*testing.T) any { return &bytes.Buffer{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.make(t)
			for what, got := range map[string]any{
				"Reader": Reader(v.(io.Reader)), "Writer": Writer(v.(io.Writer)),
			} {
				if _, raw := got.(*file); raw != tt.raw {
					t.Errorf("%s: raw = %v, want %v", what, raw, tt.raw)
				}
			}
		})
	}
}

// Bytes arrive whole and in order through a pipe far smaller than what is sent, so both
// sides wait in the poller (empty pipe, full pipe) many times; EOF follows the last byte.
func TestReadWriteThroughSmallPipe(t *testing.T) {
	r, w := pipe(t)
	src := make([]byte, 4<<20)
	for i := range src {
		src[i] = byte(i * 7)
	}
	werr := make(chan error, 1)
	go func() {
		wr := WriteCloser(w)
		_, err := wr.Write(src)
		werr <- errors.Join(err, wr.Close())
	}()
	got, err := io.ReadAll(Reader(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(src))
	}
}

// Closing the file ends a read that waits for data, with os.ErrClosed (what the session
// code takes as the pipe being gone).
func TestCloseEndsWaitingRead(t *testing.T) {
	r, _ := pipe(t)
	rd := Reader(r)
	errc := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		_, err := rd.Read(make([]byte, 16))
		errc <- err
	}()
	<-started
	_ = r.Close()
	if err := <-errc; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Read after Close: %v, want os.ErrClosed", err)
	}
}

// A write to a pipe whose reader is gone fails with EPIPE.
func TestWriteWithoutReader(t *testing.T) {
	r, w := pipe(t)
	_ = r.Close()
	if _, err := Writer(w).Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write: %v, want EPIPE", err)
	}
}

// A read and a write allocate nothing: they are on every tool call's path.
func TestReadWriteAllocateNothing(t *testing.T) {
	r, w := pipe(t)
	rd, wr := Reader(r), Writer(w)
	msg, buf := []byte("a line\n"), make([]byte, 64)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := wr.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Read(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per write and read", allocs)
	}
}
