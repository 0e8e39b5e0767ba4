package fake

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestServeStdioExits: in process, the server's exits end ServeStdio with the status the
// process would have had, and nothing is written after the exit (-crash-after answers
// the crashing call with nothing); a flag only a process can play is refused.
func TestServeStdioExits(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	tests := []struct {
		name   string
		args   []string
		send   []string // each answered by one line, but for the last when it crashes
		status int      // 0: a clean end when stdin ends
		stderr string   // in what it wrote on stderr
	}{
		{"exit on start", []string{"-exit-on-start"}, nil, exitStart, "fatal: boom"},
		{"crash on the first call", []string{"-crash-after", "1"}, []string{initialize, call}, exitCrash, "crashing on tools/call #1"},
		{"clean end", nil, []string{initialize, call}, 0, ""},
		{"process only", []string{"-grandchild"}, nil, exitSetup, "-grandchild needs a process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
			defer cancel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			done := make(chan error, 1)
			go func() {
				done <- ServeStdio(ctx, tt.args, Env{}, inR, outW, &stderr)
				_ = outW.Close()
				_ = inR.Close()
			}()
			sc := bufio.NewScanner(outR)
			for i, l := range tt.send {
				if _, err := io.WriteString(inW, l+"\n"); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
				if last := i == len(tt.send)-1; last && tt.status != 0 {
					break
				}
				if !sc.Scan() {
					t.Fatalf("no answer to %d", i)
				}
			}
			if tt.status == 0 {
				_ = inW.Close()
			}
			if sc.Scan() { // a crashed server writes nothing more, not even its answer
				t.Fatalf("read after the end: %q", sc.Text())
			}
			err := <-done
			var exit *ExitError
			switch {
			case tt.status == 0 && err != nil, tt.status != 0 && (!errors.As(err, &exit) || exit.Code != tt.status):
				t.Fatalf("ServeStdio = %v, want status %d", err, tt.status)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestListenHTTPSetupFailure: a setup failure while the HTTP server is being built fails
// the listen with the setup exit, as the process would exit. Before, the exit stopped a
// server not assigned yet (a nil dereference on another goroutine) and the listen
// succeeded.
func TestListenHTTPSetupFailure(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"streamable HTTP", []string{"-http", "127.0.0.1:0", "-list-hints", "bogus"}},
		{"SSE", []string{"-sse", "127.0.0.1:0", "-list-hints", "bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			url, stop, err := ListenHTTP(tt.args, Env{}, &stderr)
			if stop != nil {
				defer stop()
			}
			var exit *ExitError
			if !errors.As(err, &exit) || exit.Code != exitSetup || !strings.Contains(stderr.String(), "-list-hints") {
				t.Fatalf("listen with a bad -list-hints: url %q, err %v, stderr %q; want exit status %d", url, err, stderr.String(), exitSetup)
			}
		})
	}
}
