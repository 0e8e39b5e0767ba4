package fake

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// junkWriter wraps the stdio server's output and writes a non-JSON junk line
// (the kind of thing npm or a careless logger prints) before every complete
// JSON line. Input is buffered up to each newline and everything happens
// under one mutex, so a JSON line is never split or interleaved, no matter
// how the server chunks or interleaves its writes.
type junkWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	n   int
}

func newJunkWriter(w io.Writer) *junkWriter {
	return &junkWriter{w: w}
}

// junkLine writes one junk line on its own.
func (j *junkWriter) junkLine() {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.writeJunkLocked()
}

func (j *junkWriter) writeJunkLocked() error {
	j.n++
	_, err := fmt.Fprintf(j.w, "npm WARN something junk line %d\n", j.n)
	return err
}

// Write implements io.Writer.
func (j *junkWriter) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf = append(j.buf, p...)
	for {
		i := bytes.IndexByte(j.buf, '\n')
		if i < 0 {
			break
		}
		if err := j.writeJunkLocked(); err != nil {
			return 0, err
		}
		if _, err := j.w.Write(j.buf[:i+1]); err != nil {
			return 0, err
		}
		j.buf = j.buf[i+1:]
	}
	if len(j.buf) == 0 {
		j.buf = nil
	}
	return len(p), nil
}
