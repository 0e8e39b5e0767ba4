package session

import (
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
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// capServer answers initialize and tools/call read from stdin on stdout (capCall), as a
// stdio server's process would (lineServer). It ends when stdin does.
func capServer(stdin io.Reader, stdout io.Writer) {
	var held []json.RawMessage
	serve := lineServer(func(out, _ io.Writer, id json.RawMessage, name string) (bool, error) {
		held = capCall(out, id, name, held)
		return true, nil
	})
	_ = serve(context.Background(), stdin, stdout, io.Discard)
}

// capCall answers capServer's tools/call named name with id; held are the "hold" calls
// not answered yet, and it returns those still held. "hold" is not answered until a
// "late" call comes (a notification "held" says it arrived); "late" is answered with
// 2 MiB, its id written after its result and before its "jsonrpc" member, and then the
// held calls are answered "ok". Any other call is answered "ok" behind a notification of
// 2 MiB that names its method between its params and its "jsonrpc" member.
func capCall(out io.Writer, id json.RawMessage, name string, held []json.RawMessage) []json.RawMessage {
	okReply := func(id json.RawMessage) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`+"\n", id)
	}
	switch name {
	case "nul": // a raw NUL inside the text, as a server writing binary data as text does
		fmt.Fprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x00b\"}]}}\n", id)
		return held
	case "deep": // a structured result nested as deep as the decoders read, inside the reply
		io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[],"structuredContent":{"a":`+
			strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}}}`+"\n")
		return held
	case "hold":
		io.WriteString(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"held"}}`+"\n")
		return append(held, id)
	case "late":
		io.WriteString(out, `{"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 2<<20)+`"}]},"id":`+string(id)+`,"jsonrpc":"2.0"}`+"\n")
		for _, h := range held {
			okReply(h)
		}
		return nil
	}
	io.WriteString(out, `{"params":{"level":"info","data":"`+strings.Repeat("x", 2<<20)+`"},"method":"notifications/message","jsonrpc":"2.0"}`+"\n")
	okReply(id)
	return held
}

// TestStdioOversizeNotificationIsDropped: a stdio server's over-size notification whose
// method sits mid-message (neither its first nor its last member) is dropped with a
// warning that names the server and the method, never the content; the reply behind it
// reaches the call waiting for it and the session goes on. Before, it was taken for a
// reply whose id could not be found: the session ended and the call failed.
func TestStdioOversizeNotificationIsDropped(t *testing.T) {
	t.Parallel()
	var log testutil.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	sess := openCapServer(ctx, t, &log, nil)
	for i := range 2 {
		res, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "any"}})
		if err != nil {
			t.Fatalf("call %d behind an over-size notification: %v (session end %v)", i, err, sess.End())
		}
		if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != "ok" {
			t.Fatalf("call %d: got %+v", i, res.Content[0])
		}
	}
	select {
	case <-sess.Done():
		t.Fatalf("session ended: %v", sess.End())
	default:
	}
	l := log.String()
	if strings.Count(l, `"method":"notifications/message"`) != 2 || !strings.Contains(l, `"server":"capped"`) ||
		!strings.Contains(l, `"transport":"stdio"`) || !strings.Contains(l, "the stream goes on") {
		t.Fatalf("log does not report both dropped notifications: %s", l)
	}
	if strings.Contains(l, "xxxxxxxx") {
		t.Fatalf("log holds the notification's content: %.300s", l)
	}
	if strings.Contains(l, "server's reply") || strings.Contains(l, "ask for less") {
		t.Fatalf("the warning gives a failed reply's reason for a dropped notification: %s", l)
	}
}

// openCapServer opens a pipe session to capServer through a 1 MiB cap: the stdio framing
// and reply limiter of a process's pipes, without a process; notes, when set, receives
// its notifications.
func openCapServer(ctx context.Context, t *testing.T, log *testutil.SyncBuffer, notes func(mcp.JSONRPCNotification)) Session {
	t.Helper()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	serve := func(_ context.Context, in io.Reader, out, _ io.Writer) error {
		capServer(in, out)
		return nil
	}
	sess, err := OpenPipe(ctx, Pipe{Name: "capped", Serve: serve, MaxReply: 1 << 20,
		Log: zerolog.New(log), Clock: clock.System{}}, Handlers{Init: init, OnNotification: notes})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
	return sess
}

// TestStdioOversizeReplyIDBehindScalarsFailsOnlyItsCall: a stdio server's over-size
// reply that names its id after its result, among the scalar members it ends with (here
// before "jsonrpc"), fails only its own call, with the cap's error and the setting to
// raise; a call in flight beside it gets its answer and the session goes on. Before,
// the id was read only when it was the very last member: the reply was taken as
// unmatched, and the session ended under every call in flight.
func TestStdioOversizeReplyIDBehindScalarsFailsOnlyItsCall(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	heldNote := make(chan struct{}, 1)
	sess := openCapServer(ctx, t, &testutil.SyncBuffer{}, func(n mcp.JSONRPCNotification) {
		if d, _ := n.Params.AdditionalFields["data"].(string); d == "held" {
			heldNote <- struct{}{}
		}
	})
	held := make(chan error, 1)
	go func() {
		res, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "hold"}})
		if err == nil {
			if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != "ok" {
				err = fmt.Errorf("got %+v", res.Content[0])
			}
		}
		held <- err
	}()
	select {
	case <-heldNote:
	case <-ctx.Done():
		t.Fatal("the first call never reached the server")
	}
	_, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "late"}})
	var ended *EndedError
	if err == nil || !strings.Contains(err.Error(), "larger than the bridge accepts (1 MiB)") || !strings.Contains(err.Error(), MaxReplyEnv) || errors.As(err, &ended) {
		t.Fatalf("over-size reply with its id behind a scalar member: %v (session end %v)", err, sess.End())
	}
	select {
	case err := <-held:
		if err != nil {
			t.Fatalf("the call in flight beside the over-size reply: %v (session end %v)", err, sess.End())
		}
	case <-ctx.Done():
		t.Fatal("the call in flight was never answered")
	}
	select {
	case <-sess.Done():
		t.Fatalf("session ended: %v", sess.End())
	default:
	}
}
