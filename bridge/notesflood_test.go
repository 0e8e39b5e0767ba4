package bridge

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/interact"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestServerFloodsReachHostPaced: what a server can make the bridge do at will (progress
// notifications of a call, refused sampling requests) reaches the host as a bounded number
// of note frames on the bridge's clock, with the last progress shown in the end.
func TestServerFloodsReachHostPaced(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		flood     func(b *Bridge, c *fakeClock, token any)
		maxFrames int
		last      string // the note the host shows in the end
	}{
		{name: "progress", flood: func(b *Bridge, c *fakeClock, token any) {
			for i := 1; i <= 30000; i++ {
				bridgeHost{b}.Progress("s", mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 30000,
					Message: fmt.Sprintf("step %d", i)})
				c.Advance(100 * time.Microsecond)
			}
		}, maxFrames: interact.NoteFramesWithin(3 * time.Second), last: "s slow: step 30000 100%"},
		{name: "sampling", flood: func(b *Bridge, _ *fakeClock, _ any) {
			for range 5000 {
				bridgeHost{b}.SamplingRefused("s")
			}
		}, maxFrames: 2, last: `MCP server "s" asked zot's model to generate text (sampling); mcp-bridge does not offer that, so its request was refused and the server's operation may fail.`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.write(map[string]any{}, nil)
			b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(t)),
				Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
			h := serveHost(t, b)
			h.Handshake(ctxGuard(t), exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}})
			cctx, end := b.x.progress.BeginFunc(context.Background(), "s", "slow", nil)
			defer end()
			before := sentinel(t, b, h, "before")
			tt.flood(b, e.clock, interact.ProgressMeta(cctx).ProgressToken)
			after := sentinel(t, b, h, "after")
			frames := 0
			for _, f := range h.Pending() {
				if f.Seq > before && f.Seq < after && (f.Type == "notify" || f.Type == "clear_notes") {
					frames++
				}
			}
			if frames > tt.maxFrames {
				t.Errorf("%d note frames, want at most %d", frames, tt.maxFrames)
			}
			e.clock.Advance(time.Second)
			if _, err := h.WaitNotify(ctxGuard(t), tt.last); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// sentinel writes a note straight to the host session, past the board, and returns its
// position in what the host read: the frames before it were written before it.
func sentinel(t *testing.T, b *Bridge, h *exttest.Host, name string) int {
	t.Helper()
	text := fmt.Sprintf("sentinel %s", name)
	b.sess.Load().Notify("info", text)
	n, err := h.WaitNotify(ctxGuard(t), text)
	if err != nil {
		t.Fatal(err)
	}
	return n.Frame.Seq
}
