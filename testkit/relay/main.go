// Command relay runs a command and passes its standard input and output through itself
// unchanged: relay CMD [ARGS...]. Each direction is one loop that reads what arrived and
// writes it on at once, with nothing else to do in between. A client that talks to a server
// through it pays exactly what any process in the middle of a stdio connection must: two
// more pipe hops and the wake-ups of a second process. The call benchmark measures a direct
// client through it, as the floor of what the bridge can add to a call. Its pipes are read
// and written the way the bridge's are (rawio: raw system calls on non-blocking
// descriptors, waiting in Go's poller), so the floor is not lowered or raised by how the
// bytes are moved.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/zot-mcp/mcp-bridge/internal/rawio"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relay CMD [ARGS...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:]))
}

func run(name string, args []string) int {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	childIn, in, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	out, childOut, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	_ = childIn.Close()
	_ = childOut.Close()
	stdin, releaseIn := rawFile(os.Stdin)
	defer releaseIn()
	stdout, releaseOut := rawFile(os.Stdout)
	defer releaseOut()
	go func() {
		pass(rawio.Writer(in), rawio.Reader(stdin))
		_ = in.Close() // the client is gone: so is the server's input
	}()
	pass(rawio.Writer(stdout), rawio.Reader(out))
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// rawFile returns a non-blocking duplicate of f that Go's poller watches (rawio), or f
// itself when there is none.
func rawFile(f *os.File) (*os.File, func()) {
	d, release := rawio.Duplicate(f)
	if d == nil {
		return f, release
	}
	return d, release
}

// pass copies src to dst until either fails, one plain read and one write at a time (no
// splice or other copy helper that could batch or delay).
func pass(dst io.Writer, src io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
