package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// lineServer answers initialize and runs every tools/call through call, which writes
// what the server writes for it and returns whether the server goes on; it ends (with
// call's error) when stdin ends or call says so.
func lineServer(call func(out io.Writer, stderr io.Writer, id json.RawMessage, name string) (bool, error)) func(context.Context, io.Reader, io.Writer, io.Writer) error {
	return func(_ context.Context, stdin io.Reader, out, stderr io.Writer) error {
		in := bufio.NewScanner(stdin)
		for in.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
					Name            string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
				continue
			}
			switch req.Method {
			case "initialize":
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"piped","version":"1"}}}`+"\n", req.ID, req.Params.ProtocolVersion)
			case "tools/call":
				if more, err := call(out, stderr, req.ID, req.Params.Name); !more {
					return err
				}
			default:
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID)
			}
		}
		return nil
	}
}

// TestPipeSessionEnds: a pipe session runs the stdio framing without a process, and each
// way it ends is told as a process's would be: the server returning is its exit (status
// and stderr in End, the call in flight failing with an *EndedError), an over-size reply
// without an id ends the stream (CauseLost), and an over-size reply with one fails only
// its call, with the limiter told it replaced it (Replaced), the session going on.
func TestPipeSessionEnds(t *testing.T) {
	big := strings.Repeat("x", 2<<10)
	tests := []struct {
		name    string
		call    func(out, stderr io.Writer, id json.RawMessage, name string) (bool, error)
		want    End    // Cause 0: the session goes on
		callErr string // in the call's error
	}{
		{name: "exit with an error", call: func(_, stderr io.Writer, _ json.RawMessage, _ string) (bool, error) {
			fmt.Fprintln(stderr, "fatal: boom")
			return false, errors.New("exit status 3")
		}, want: End{Cause: CauseExited, Status: "exited: exit status 3", Stderr: "fatal: boom"}, callErr: "exit status 3"},
		{name: "clean exit", call: func(io.Writer, io.Writer, json.RawMessage, string) (bool, error) { return false, nil },
			want: End{Cause: CauseExited, Status: "exited with status 0"}, callErr: "exited with status 0"},
		{name: "over-size reply without an id", call: func(out, _ io.Writer, _ json.RawMessage, _ string) (bool, error) {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","result":{"text":%q}}`+"\n", big)
			return true, nil
		}, want: End{Cause: CauseLost, Err: &TooLargeError{Limit: 1 << 10}}, callErr: "transport lost"},
		{name: "over-size reply with its id", call: func(out, _ io.Writer, id json.RawMessage, _ string) (bool, error) {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"text":%q}}`+"\n", id, big)
			return true, nil
		}, callErr: "larger than the bridge accepts (1024 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
			defer cancel()
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			replaced := make(chan struct{}, 1)
			sess, err := openPipe(ctx, Pipe{Name: "piped", Serve: lineServer(tt.call), MaxReply: 1 << 10, Log: zerolog.Nop(), Clock: clock.System{}},
				Handlers{Init: init}, func() { replaced <- struct{}{} })
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close(context.Background())
			if sess.Info().ServerName != "piped" {
				t.Fatalf("info: %+v", sess.Info())
			}
			_, err = sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "x"}})
			if err == nil || !strings.Contains(err.Error(), tt.callErr) {
				t.Fatalf("call: %v, want one saying %q", err, tt.callErr)
			}
			var ended *EndedError
			if got := errors.As(err, &ended); got != (tt.want.Cause != 0) {
				t.Fatalf("call: %v is an EndedError: %v", err, got)
			}
			if tt.want.Cause == 0 {
				// The limiter tells of the replacement before it hands the error on.
				select {
				case <-replaced:
				default:
					t.Fatal("the limiter did not say it replaced the reply")
				}
				if err := sess.Ping(ctx); err != nil {
					t.Fatalf("ping after the dropped reply: %v", err)
				}
				return
			}
			<-sess.Done()
			got := sess.End()
			if got.Cause != tt.want.Cause || got.Status != tt.want.Status || got.Stderr != tt.want.Stderr ||
				(tt.want.Err == nil) != (got.Err == nil) || (got.Err != nil && !errors.Is(got.Err, ErrReplyTooLarge)) {
				t.Fatalf("end = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPipeSessionCloseStopsTheServer: Close ends the server (its stdin closes and its
// context is cancelled) and returns once it has; End says CauseClosed.
func TestPipeSessionCloseStopsTheServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	returned := make(chan struct{})
	inner := lineServer(func(io.Writer, io.Writer, json.RawMessage, string) (bool, error) { return true, nil })
	serve := func(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
		defer close(returned)
		return inner(ctx, in, out, stderr)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	sess, err := OpenPipe(ctx, Pipe{Name: "piped", Serve: serve, Log: zerolog.Nop()}, Handlers{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case <-returned:
	default:
		t.Fatal("Close returned before the server did")
	}
	if c := sess.End().Cause; c != CauseClosed {
		t.Fatalf("end cause %v, want closed", c)
	}
}

// TestPipeServerGoneBeforeTheHandshake: a server that returns before reading anything
// (a process that exits at start) fails the open with an *EndedError that carries its
// exit and stderr, as a process does: the session's write then fails as on a dead
// process's stdin. Before, the write failed with io.ErrClosedPipe, which is no sign of a
// lost transport, and the open failed with a bare transport error.
func TestPipeServerGoneBeforeTheHandshake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	serve := func(_ context.Context, _ io.Reader, _, stderr io.Writer) error {
		fmt.Fprintln(stderr, "fatal: boom")
		return errors.New("exit status 1")
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	_, err := OpenPipe(ctx, Pipe{Name: "gone", Serve: serve, Log: zerolog.Nop()}, Handlers{Init: init})
	var ended *EndedError
	if !errors.As(err, &ended) || ended.End.Cause != CauseExited || ended.End.Status != "exited: exit status 1" || !strings.Contains(ended.End.Stderr, "fatal: boom") {
		t.Fatalf("open: %v (end %#v), want an EndedError for the exit", err, ended.End)
	}
}

// TestPipeSessionCloseUnblocksAWriter: Close returns even when the server is blocked
// writing to its stdout, which nobody reads once the session is closed (a process's write
// would fail on the closed pipe).
func TestPipeSessionCloseUnblocksAWriter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	writing := make(chan struct{})
	inner := lineServer(func(out, _ io.Writer, id json.RawMessage, _ string) (bool, error) {
		close(writing)
		for { // ignores its context, as a busy server does, until a write fails
			if _, err := fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}`+"\n"); err != nil {
				return false, nil
			}
		}
	})
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	sess, err := OpenPipe(ctx, Pipe{Name: "busy", Serve: inner, Log: zerolog.Nop()}, Handlers{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "x"}}) }()
	<-writing
	if err := sess.Close(ctx); err != nil && ctx.Err() != nil {
		t.Fatalf("close: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Close did not return before the guard")
	}
}

// TestPipeSessionCloseBoundedByGrace: Close returns once pipeStopGrace has passed on the
// session's clock even when Serve ignores both its stdin and its context (a goroutine
// cannot be killed as a process is). Before, Close waited for it forever.
func TestPipeSessionCloseBoundedByGrace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	inner := lineServer(func(io.Writer, io.Writer, json.RawMessage, string) (bool, error) { return true, nil })
	serve := func(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
		_ = inner(ctx, in, out, stderr)
		<-release // deaf to its stdin's end and to ctx
		return nil
	}
	clk := clock.NewFake()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	sess, err := OpenPipe(ctx, Pipe{Name: "deaf", Serve: serve, Log: zerolog.Nop(), Clock: clk}, Handlers{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- sess.Close(context.Background()) }()
	if err := clk.AdvanceWhenSet(ctx, pipeStopGrace); err != nil {
		t.Fatalf("no stop grace on the session's clock: %v", err)
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return after the grace")
	}
	if c := sess.End().Cause; c != CauseClosed {
		t.Fatalf("end cause %v, want closed", c)
	}
}

// TestPipeStdoutClosedServerRunning: a server that closes its stdout but keeps running
// fails a request without a deadline once reapGrace has passed on the session's clock,
// as a plain failure of the lost transport. Before, the request waited for an end that
// never came.
func TestPipeStdoutClosedServerRunning(t *testing.T) {
	guard, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	inner := lineServer(func(out, _ io.Writer, _ json.RawMessage, _ string) (bool, error) {
		_ = out.(io.Closer).Close()
		<-release // running on, its stdout gone
		return false, nil
	})
	clk := clock.NewFake()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	sess, err := OpenPipe(guard, Pipe{Name: "mute", Serve: inner, Log: zerolog.Nop(), Clock: clk}, Handlers{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		go func() { _ = clk.AdvanceWhenSet(guard, pipeStopGrace) }()
		_ = sess.Close(guard)
	}()
	errc := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "x"}})
		errc <- err
	}()
	if err := clk.AdvanceWhenSet(guard, reapGrace); err != nil {
		t.Fatalf("no reap grace on the session's clock: %v", err)
	}
	err = <-errc
	var ended *EndedError
	if !TransportLost(err) || errors.As(err, &ended) {
		t.Fatalf("call after stdout closed: %v; want the lost transport's failure", err)
	}
}
