package extension

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readerBuffer is the size of the bufio.Reader in front of stdin; lines
// longer than it are assembled from several chunks.
const readerBuffer = 64 << 10

// lineReader splits stdin into lines, enforcing MaxLine.
type lineReader struct {
	br *bufio.Reader
	// onTooLong is called with the length and the first overLongHead bytes of every
	// discarded line.
	onTooLong func(n int, head []byte)
}

// overLongHead is how much of a discarded over-long line is kept for recovering its
// frame type and id.
const overLongHead = 64 << 10

func newLineReader(in io.Reader, onTooLong func(n int, head []byte)) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(in, readerBuffer), onTooLong: onTooLong}
}

// next returns the next line that fits in MaxLine (including its '\n'),
// without the line terminator ("\n" or "\r\n"). The returned slice is freshly
// allocated. Longer lines are skipped up to their newline and reported to
// onTooLong. A final line without '\n' is returned as well; io.EOF comes with
// the call after it.
func (lr *lineReader) next() ([]byte, error) {
	for {
		var line, head []byte
		n := 0 // length of the line so far, including a '\n' if seen
		tooLong := false
		for {
			chunk, err := lr.br.ReadSlice('\n')
			n += len(chunk)
			if !tooLong {
				if n >= MaxLine {
					tooLong = true
					// Keep the start: the frame's type and id come first, so the
					// caller can still answer a tool_call it cannot read.
					line = append(line, chunk...)
					head = bytes.Clone(line[:min(len(line), overLongHead)])
					line = nil
				} else {
					line = append(line, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if err != nil && n == 0 {
				return nil, io.EOF
			}
			if err != nil && !tooLong && n+1 >= MaxLine {
				// A final line without newline that would not fit with one.
				tooLong = true
				head = bytes.Clone(line[:min(len(line), overLongHead)])
			}
			break
		}
		if tooLong {
			if lr.onTooLong != nil {
				lr.onTooLong(n, head)
			}
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		return line, nil
	}
}
