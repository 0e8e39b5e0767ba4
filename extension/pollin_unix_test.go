//go:build unix

package extension

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// nonblocking reports whether f's descriptor is in non-blocking mode.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	var ferr error
	if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return fl&unix.O_NONBLOCK != 0
}

// hostPipes returns a stdin pipe left non-blocking (as os.Pipe makes it) and a stdout
// pipe whose write end is in blocking mode, as a child's stdout is; all four ends are
// closed when the test ends.
func hostPipes(t *testing.T) (inR, inW, outR, outW *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inR.Close(); _ = inW.Close(); _ = outR.Close(); _ = outW.Close() })
	_ = outW.Fd() // Fd puts the end into blocking mode
	return inR, inW, outR, outW
}

// A stdin pipe in blocking mode (as a host hands it over) is read through the poller while
// Run runs, and is back in blocking mode, still readable, once Run returned.
func TestRunReadsPipeThroughPoller(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pr.Close(); _ = pw.Close() })
	// os.Pipe's ends are non-blocking; Fd puts them into blocking mode, as a child's stdin is.
	_ = pr.Fd()
	if nonblocking(t, pr) {
		t.Fatal("setup: the pipe is non-blocking before Run")
	}
	outR, outW := io.Pipe()
	t.Cleanup(func() { _ = outR.Close() })
	next := readLines(outR)
	echoOverRun(t, pr, pw, outW, next, func() {
		if !nonblocking(t, pr) {
			t.Fatal("Run reads stdin with blocking reads")
		}
	})
	if nonblocking(t, pr) {
		t.Fatal("stdin is left in non-blocking mode after Run")
	}
	if _, err := pw.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := pr.Read(buf); err != nil || string(buf[:n]) != "after\n" {
		t.Fatalf("read after Run = %q, %v", buf[:n], err)
	}
}

// A stdout pipe in blocking mode (as a host hands it over) is written through a
// non-blocking duplicate while Run runs, and is back in blocking mode, still writable,
// once Run returned; a stdin that is non-blocking already stays so.
func TestRunWritesPipeThroughPoller(t *testing.T) {
	inR, inW, outR, outW := hostPipes(t)
	next := readLines(outR)
	echoOverRun(t, inR, inW, outW, next, func() {
		if !nonblocking(t, outW) {
			t.Fatal("Run writes stdout with blocking writes")
		}
	})
	if nonblocking(t, outW) {
		t.Fatal("stdout is left in non-blocking mode after Run")
	}
	if !nonblocking(t, inR) {
		t.Fatal("a non-blocking stdin was put into blocking mode by Run")
	}
	if _, err := outW.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	next(t, "after")
}

// readLines reads r's lines on a goroutine; the function it returns waits for a line
// containing want and fails the test if r ends first.
func readLines(r io.Reader) func(t *testing.T, want string) {
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return func(t *testing.T, want string) {
		t.Helper()
		for l := range lines {
			if strings.Contains(l, want) {
				return
			}
		}
		t.Fatalf("output ended before a line with %s", want)
	}
}

// echoOverRun runs Run on in and out, says hello_ack as the host, calls while Run serves
// (once ready), makes one echo tool call and stops Run.
func echoOverRun(t *testing.T, in, inW *os.File, out io.Writer, next func(*testing.T, string), while func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- Run(runCtx, in, out, &testHandler{}, Options{Name: "t"}) }()
	if _, err := inW.WriteString(`{"type":"hello_ack","protocol_version":1,"capabilities":[]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	next(t, `"type":"ready"`)
	while()
	if _, err := inW.WriteString(`{"type":"tool_call","id":"1","name":"echo","args":{"a":1}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	next(t, `echo:{\"a\":1}`)
	stop()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}
