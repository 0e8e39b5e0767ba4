package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// startEverything runs the npm everything server in mode (streamableHttp or sse) on a
// loopback port and returns its base url.
func startEverything(t *testing.T, mode string) string { return testutil.StartEverything(t, mode) }

// The real reference server, bridged end to end: list its tools into the cache, then in a
// new session search for echo and call it.
func TestServerEverythingHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		entry func(base string) map[string]any
		want  string // transport that must be used
	}{
		{"streamableHttp", func(base string) map[string]any {
			return map[string]any{"url": base + "/mcp", "transport": "streamable-http"}
		}, "streamable-http"},
		{"sse", func(base string) map[string]any {
			return map[string]any{"url": base + "/sse", "transport": "sse"}
		}, "sse"},
		// url only: the server answers the streamable POST with 404, so the bridge falls back.
		{"sse", func(base string) map[string]any { return map[string]any{"url": base + "/sse"} }, "sse"},
	} {
		name := tc.mode
		if _, ok := tc.entry("")["transport"]; !ok {
			name += "-url-only"
		}
		t.Run(name, func(t *testing.T) {
			base := startEverything(t, tc.mode)
			e := newTestEnv(t)
			entry := tc.entry(base)
			entry["connectTimeout"] = 30
			e.write(map[string]any{"everything": entry}, nil)
			first := e.bridge(extension.GenNew)
			if _, errs := first.Refresh(ctxGuard(t), []string{"everything"}); len(errs) > 0 {
				t.Fatal(errs)
			}
			if tr := e.srv(first, "everything").Status().Transport; string(tr) != tc.want {
				t.Fatalf("transport %q, want %s", tr, tc.want)
			}
			first.Close(ctxGuard(t))

			b := e.bridge(extension.GenNew)
			res := runSearch(t, b, map[string]any{"query": "echo back a message", "limit": 3})
			if res.IsError {
				t.Fatalf("search failed: %s", textOf(t, res))
			}
			const tool = "mcp__everything__echo"
			found := false
			for _, n := range res.ActivateTools {
				found = found || n == tool
			}
			if !found {
				t.Fatalf("search did not load %s: %v\n%s", tool, res.ActivateTools, textOf(t, res))
			}
			args, _ := json.Marshal(map[string]any{"message": "hello from zot"})
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			got := b.CallTool(ctx, extension.ToolCall{ID: "1", Name: tool, Args: args})
			if got.IsError || !strings.Contains(textOf(t, got), "Echo: hello from zot") {
				t.Fatalf("echo: error=%v %q", got.IsError, textOf(t, got))
			}
		})
	}
}
