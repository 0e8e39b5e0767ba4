package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
)

// cancelAfterReply is a transport that cancels the caller's context once a tools/call
// answer has come back, before the request wrapper looks at it: a deadline that fires
// just as the answer arrives.
type cancelAfterReply struct {
	transport.Interface
	cancel context.CancelFunc
}

func (c cancelAfterReply) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	res, err := c.Interface.SendRequest(ctx, req)
	if req.Method == string(mcp.MethodToolsCall) {
		c.cancel()
	}
	return res, err
}

// TestReplyAtTheDeadlineIsKept: a tools/call answered just as its context ends keeps its
// answer over a real transport (a pipe, the stdio framing); only the in-process session,
// whose transport answers when a real client would have given up, fails it. Before, the
// request wrapper discarded the answer on every transport and reported the context's end.
func TestReplyAtTheDeadlineIsKept(t *testing.T) {
	tests := []struct {
		name string
		open func(context.Context, Handlers) (Session, error)
		kept bool
	}{
		{"pipe", func(ctx context.Context, h Handlers) (Session, error) {
			serve := lineServer(func(out, _ io.Writer, id json.RawMessage, _ string) (bool, error) {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"answered"}]}}`+"\n", id)
				return true, nil
			})
			return OpenPipe(ctx, Pipe{Name: "piped", Serve: serve, Log: zerolog.Nop()}, h)
		}, true},
		{"in-process", func(ctx context.Context, h Handlers) (Session, error) {
			srv := server.NewMCPServer("inproc", "1", server.WithToolCapabilities(true))
			srv.AddTool(mcp.NewTool("x"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("answered"), nil
			})
			return OpenInProcess(ctx, srv, h)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			guard, cancelGuard := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
			defer cancelGuard()
			ctx, cancel := context.WithCancel(guard)
			defer cancel()
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			h := Handlers{Init: init, Wrap: func(tr transport.Interface) transport.Interface { return cancelAfterReply{tr, cancel} }}
			sess, err := tt.open(guard, h)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = sess.Close(context.Background()) }()
			res, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "x"}})
			if ctx.Err() == nil {
				t.Fatal("the context did not end with the answer")
			}
			if tt.kept {
				if err != nil || len(res.Content) != 1 {
					t.Fatalf("answer at the deadline: %v, %v; want it kept", res, err)
				}
				return
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("in-process answer after the context ended: %v, %v; want the context's end", res, err)
			}
		})
	}
}
