package bridge

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestStartupRegistersMoreThanOneLine: the cached tools go to the host as one batch, and
// a catalog whose frames together exceed the host's line limit (each frame well under it)
// is still registered whole and in order (its frames are built in pieces at once),
// from the decoded cache and from the startup file, with every optional startup setting.
func TestStartupRegistersMoreThanOneLine(t *testing.T) {
	const n = 2500
	desc := strings.Repeat("Reads and writes the things this tool is about. ", 40)
	tools := make([]cache.Tool, n)
	for i := range tools {
		tools[i] = cache.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: desc}
	}
	for _, gc := range []bool{false, true} {
		t.Run(fmt.Sprintf("StartupGC=%v", gc), func(t *testing.T) {
			e := newTestEnv(t)
			e.write(map[string]any{"big": e.server("-name", "big")}, nil)
			pre := e.bridge(extension.GenNew)
			fp := e.srv(pre, "big").Config().Fingerprint()
			if _, err := cache.Update(ctxGuard(t), pre.opts.CachePath, map[string]*cache.Server{"big": {Fingerprint: fp, ServerName: "big", Tools: tools}}, nil, pre.opts.Clock.Now); err != nil {
				t.Fatal(err)
			}
			check := func(how string, frames []string) {
				t.Helper()
				total, got := 0, map[string]bool{}
				var order []string // the tools' names as they came
				for _, f := range frames {
					total += len(f) + 1
					if strings.Contains(f, `"deferred":true`) {
						name := f[len(`{"type":"register_tool","name":"`):strings.Index(f, `","description"`)]
						got[name] = true
						order = append(order, name)
					}
				}
				// Built in pieces (on several goroutines), they still come in name order.
				if !slices.IsSorted(order) {
					t.Fatalf("%s: tools not registered in name order", how)
				}
				if total <= extension.MaxLine {
					t.Fatalf("%s: %d bytes of frames do not exceed one line (%d); the test proves nothing", how, total, extension.MaxLine)
				}
				for i := range n {
					if name := fmt.Sprintf("mcp__big__tool_%04d", i); !got[name] {
						t.Fatalf("%s: %s not registered (%d of %d deferred tools)", how, name, len(got), n)
					}
				}
			}
			adjust := func(b *Bridge) { b.opts.StartupGC = gc }
			gcBefore := debug.SetGCPercent(-1)
			debug.SetGCPercent(gcBefore)
			frames, _, _ := startSessionWith(t, e, adjust)
			check("decoded cache", frames)
			// Setup is over once ready is read: the collector must be as it was.
			if now := debug.SetGCPercent(gcBefore); now != gcBefore {
				t.Fatalf("GC percent %d after Setup, want %d as before it", now, gcBefore)
			}
			waitFile(t, cache.FramesPath(pre.opts.CachePath))
			frames, _, logs := startSessionWith(t, e, adjust)
			if !strings.Contains(logs.String(), "registering from the startup file") {
				t.Fatalf("second start did not use the startup file: %s", logs.String())
			}
			check("startup file", frames)
		})
	}
}
