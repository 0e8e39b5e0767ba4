package session

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader hands on its input n bytes per Read, the way a pipe hands on whatever the
// writer managed to put in it: a read may end inside a message or hold the end of one and
// the start of the next.
type chunkReader struct {
	s string
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.s[:min(r.n, len(r.s))])
	r.s = r.s[k:]
	return k, nil
}

// TestReplyLimiterLosesNothingAtAnyChunking: messages within the limit come out byte for
// byte, in order, whatever the pipe's read boundaries and the reader's buffer size. A
// message held back (carry) while the reader goes back to the pipe would be a reply its
// caller waits for until its budget ends.
func TestReplyLimiterLosesNothingAtAnyChunking(t *testing.T) {
	const limit = 64
	var in strings.Builder
	var want []string
	for i := range 40 {
		msg := fmt.Sprintf(`{"id":%d,"r":"%s"}`, i, strings.Repeat("x", (i*7)%(limit-20)))
		want = append(want, msg)
		in.WriteString(msg + "\n")
	}
	exact := `{"id":99,"r":"` + strings.Repeat("y", limit-len(`{"id":99,"r":""}`)) + `"}`
	want = append(want, exact)
	in.WriteString(exact + "\n")
	stream := in.String()

	for _, bufSize := range []int{16, 4096} { // 16: bufio's least, reads shorter than a message
		for chunk := 1; chunk <= 3*limit; chunk++ {
			for _, dataErr := range []bool{false, true} {
				var src io.Reader = &chunkReader{s: stream, n: chunk}
				if dataErr {
					src = iotest.DataErrReader(src) // the last data comes with io.EOF
				}
				br := bufio.NewReaderSize(newReplyLimiter(src, limit), bufSize)
				var got []string
				for {
					line, err := br.ReadString('\n')
					if line != "" {
						got = append(got, strings.TrimSuffix(line, "\n"))
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("buffer %d, chunks of %d, data with EOF %v: %v", bufSize, chunk, dataErr, err)
					}
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("buffer %d, chunks of %d, data with EOF %v: got %d messages %q, want %d", bufSize, chunk, dataErr, len(got), got, len(want))
				}
			}
		}
	}
}
