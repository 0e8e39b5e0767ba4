package extension

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension/exttest"
)

// orderLog is an ordered list of what happened, written from several goroutines.
type orderLog struct {
	mu     sync.Mutex
	events []string
}

func (l *orderLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *orderLog) after(e string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.events {
		if x == e && i+1 < len(l.events) {
			return l.events[i+1]
		}
	}
	return ""
}

// readLog logs every read of stdin that returns a tool_call, and every read that starts.
type readLog struct {
	r   io.Reader
	log *orderLog
}

func (r *readLog) Read(p []byte) (int, error) {
	r.log.add("read")
	n, err := r.r.Read(p)
	if bytes.Contains(p[:n], []byte(`"tool_call"`)) {
		r.log.add("tool_call read")
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
	log := &orderLog{}
	hk := hooks{callStart: func(id string) { log.add("call " + id + " started") }}
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
	if got := log.after("tool_call read"); got != "call 1 started" {
		t.Fatalf("after the tool_call was read came %q, want the call's start", got)
	}
	_ = host.CloseStdin()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
