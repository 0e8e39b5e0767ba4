package extension

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// readLog logs every read of stdin that returns a tool_call, and every read that starts.
type readLog struct {
	r   io.Reader
	log *testutil.EventLog
}

func (r *readLog) Read(p []byte) (int, error) {
	r.log.Add("read")
	n, err := r.r.Read(p)
	if bytes.Contains(p[:n], []byte(`"tool_call"`)) {
		r.log.Add("tool_call read")
	}
	return n, err
}

// A tool call read from stdin starts on its worker before the reader reads stdin again:
// on one P the reader would otherwise go first, into a read that finds the pipe empty.
// Not parallel: it sets GOMAXPROCS.
func TestCallStartsBeforeTheNextRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	host, in, out := exttest.NewPipe(t)
	log := &testutil.EventLog{}
	hk := hooks{callStart: func(id string) { log.Add("call " + id + " started") }}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, &readLog{r: in, log: log}, out, &testHandler{}, Options{Name: "t", Log: zerolog.Nop()}, hk)
	}()
	host.ExpectHello(ctx)
	host.Handshake(ctx, newAck())
	r, err := host.CallTool(ctx, "1", "echo", map[string]any{})
	if err != nil || !strings.Contains(r.Text(), "echo") {
		t.Fatalf("call: %v %v", r, err)
	}
	if got := log.After("tool_call read"); got != "call 1 started" {
		t.Fatalf("after the tool_call was read came %q, want the call's start", got)
	}
	_ = host.CloseStdin()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
