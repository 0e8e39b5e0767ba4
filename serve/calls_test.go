package serve

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// TestCallOf: a server's request goes to the call it names (its context), or to the
// server's only call in flight; with several in flight a request that names none goes to
// none of them (a question of one user's call must not reach another's), and with none
// it is refused.
func TestCallOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		calls   int  // in flight on server "x"
		byCtx   bool // the request carries the second call's context
		want    int  // index of the call found, -1: none
		wantErr error
	}{
		{name: "no call", calls: 0, want: -1, wantErr: errNoCall},
		{name: "the only call", calls: 1, want: 0},
		{name: "two calls, the request names none", calls: 2, want: -1, wantErr: errAmbiguous},
		{name: "two calls, the request names one", calls: 2, byCtx: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cb := newCallBoard(clock.NewFake(), DefaultAnswerWait)
			release := make(chan struct{})
			defer close(release)
			var calls []*call
			for range tt.calls {
				calls = append(calls, cb.start(context.Background(), mcp.CallToolRequest{}, "x",
					func(ctx context.Context, _ bridge.ProgressFunc) (*mcp.CallToolResult, error) {
						select {
						case <-release:
						case <-ctx.Done():
						}
						return mcp.NewToolResultText("done"), nil
					}))
			}
			ctx := context.Background()
			if tt.byCtx {
				ctx = calls[1].bctx
			}
			got, err := cb.callOf(ctx, "x")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if tt.want < 0 {
				if got != nil {
					t.Fatalf("found call %s, want none", got.id)
				}
				return
			}
			if got != calls[tt.want] {
				t.Fatalf("found another call than #%d", tt.want)
			}
		})
	}
}
