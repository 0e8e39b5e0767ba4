package stdioserve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestServesApart: two servers served at once in one process each answer their own
// client, and a notification a tool sends reaches only the client that called it (with
// mcp-go's StdioServer, which shares one session per process, it could reach either).
// Serve returns nil once its input ends.
func TestServesApart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	type conn struct {
		in   *io.PipeWriter
		out  *bufio.Scanner
		done chan error
	}
	open := func(name string) conn {
		srv := server.NewMCPServer(name, "1", server.WithToolCapabilities(true))
		srv.AddTool(mcp.NewTool("note"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"data": name})
			return mcp.NewToolResultText(name), nil
		})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		c := conn{in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
		go func() { c.done <- Serve(ctx, srv, inR, outW, Options{}); _ = outW.Close() }()
		return c
	}
	send := func(c conn, line string) {
		if _, err := io.WriteString(c.in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := open("a"), open("b")
	for _, c := range []conn{a, b} {
		send(c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if !c.out.Scan() || !strings.Contains(c.out.Text(), `"id":1`) {
			t.Fatalf("initialize: %q", c.out.Text())
		}
		send(c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	for name, c := range map[string]conn{"a": a, "b": b} {
		send(c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note"}}`)
		got := map[string]bool{}
		for len(got) < 2 && c.out.Scan() {
			var m struct {
				ID     json.RawMessage       `json:"id"`
				Method string                `json:"method"`
				Params struct{ Data string } `json:"params"`
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
				t.Fatalf("%s: %q: %v", name, c.out.Text(), err)
			}
			switch {
			case m.Method == "notifications/message" && m.Params.Data == name:
				got["note"] = true
			case string(m.ID) == "2" && len(m.Result.Content) == 1 && m.Result.Content[0].Text == name:
				got["answer"] = true
			default:
				t.Fatalf("client %s read another's message: %s", name, c.out.Text())
			}
		}
		if len(got) < 2 {
			t.Fatalf("client %s: got %v", name, got)
		}
	}
	for _, c := range []conn{a, b} {
		_ = c.in.Close()
		if err := <-c.done; err != nil {
			t.Fatalf("Serve after its input ended: %v", err)
		}
	}
}

// TestClientAnswersGetNoReply: a client's answer (an id, no method) is not a request: mcp-go
// takes it as the answer to a request of the server's and writes nothing back, so no error
// can come under the client's id; the next output answers the next request.
func TestClientAnswersGetNoReply(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	srv := server.NewMCPServer("s", "1")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, inR, outW, Options{}); _ = outW.Close() }()
	out := bufio.NewScanner(outR)
	// Each step's request is answered before the next is sent: requests run on
	// goroutines of their own, so answers to requests sent together may come in any order.
	for _, step := range []struct {
		lines []string
		want  string
	}{
		{[]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`}, `"id":1`},
		{[]string{`{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":8,"method":"ping"}`}, `"id":8`},
	} {
		for _, line := range step.lines {
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		if !out.Scan() || !strings.Contains(out.Text(), step.want) {
			t.Fatalf("next output %q, want the answer with %s", out.Text(), step.want)
		}
	}
	_ = inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
