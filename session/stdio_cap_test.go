package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/testutil"
)

// capServerEnv makes this test binary a stdio MCP server (capServer) instead of running
// the tests.
const capServerEnv = "MCP_BRIDGE_SESSION_TEST_CAP_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(capServerEnv) != "" {
		capServer()
		return
	}
	os.Exit(m.Run())
}

// capServer answers initialize and tools/call on stdin/stdout; before each call's answer
// it writes a notification of 2 MiB that names its method between its params and its
// "jsonrpc" member. It ends when stdin does.
func capServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		switch req.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"cap","version":"1"}}}`+"\n", req.ID, req.Params.ProtocolVersion)
		case "tools/call":
			out.WriteString(`{"params":{"level":"info","data":"` + strings.Repeat("x", 2<<20) + `"},"method":"notifications/message","jsonrpc":"2.0"}` + "\n")
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`+"\n", req.ID)
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID)
		}
		if out.Flush() != nil {
			return
		}
	}
}

// TestStdioOversizeNotificationIsDropped: a stdio server's over-size notification whose
// method sits mid-message (neither its first nor its last member) is dropped with a
// warning that names the server and the method, never the content; the reply behind it
// reaches the call waiting for it and the session goes on. Before, it was taken for a
// reply whose id could not be found: the session ended and the call failed.
func TestStdioOversizeNotificationIsDropped(t *testing.T) {
	t.Parallel()
	var log testutil.SyncBuffer
	cfg := &config.Server{Name: "capped", Source: "mcp.json", Command: os.Args[0], Raw: config.Raw{Command: "capserver"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	// Under -race the server would pause a second at exit (GORACE's atexit_sleep_ms).
	env := append(os.Environ(), capServerEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	sess, err := OpenStdio(ctx, Stdio{Config: cfg, Env: env, MaxReply: 1 << 20,
		Log: zerolog.New(&log), Clock: clock.System{}}, Handlers{Init: init})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = sess.Close(context.Background()) })
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
