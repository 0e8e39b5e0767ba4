package bridge

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/extension/exttest"
	"github.com/zot-mcp/mcp-bridge/internal/supervise"
)

// TestSearchIndexBuiltAfterReady: once ready is sent the bridge builds the search index in
// the background, so the model's first search does not pay for it. The test waits for the
// build without searching (it would never come if only a search built the index), then
// checks the first search answers from that index.
func TestSearchIndexBuiltAfterReady(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha")}, nil)
	if _, errs := e.bridge(extension.GenNew).Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}

	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testLog(t)),
		Supervisor: []string{os.Args[0], supervise.Arg}, Resolver: noDNS()})
	h, in, out := exttest.NewPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- extension.Run(ctx, in, out, b, extension.Options{Name: "mcp"}) }()
	t.Cleanup(func() {
		cancel()
		<-done
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		b.Close(cctx)
	})
	gctx := ctxGuard(t)
	h.ExpectHello(gctx)
	h.Handshake(gctx, exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}})

	cat := b.catalog()
	select {
	case <-cat.indexed:
	case <-gctx.Done():
		t.Fatal("the search index was not built after ready (only a search would build it)")
	}
	r, err := h.CallTool(gctx, "1", SearchToolName, map[string]any{"query": "echo back a message"})
	if err != nil || len(r.ActivateTools) == 0 || r.ActivateTools[0] != "mcp__alpha__echo" {
		t.Fatalf("first search: %v %v %q", err, r.ActivateTools, r.Text())
	}
	if b.catalog() != cat {
		t.Fatal("the catalog changed under the test; the index it waited for is not the one searched")
	}
}
