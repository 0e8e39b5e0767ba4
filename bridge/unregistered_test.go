package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestTooLargeToolIsNeverOffered: a cached tool whose register_tool frame would exceed
// the host's line is not registered, and then neither a search nor select: loads it (no
// activate_tools names it), the search says why, and /mcp <server> names it with the
// reason, on every way a start registers: decoding the cache, from the startup file's
// payloads, and copying its sent section.
//
// Not parallel: three starts each move a definition past the host's 4 MiB line through
// the race detector, and among the package's parallel tests on a loaded machine one start
// outran its guard; alone, the guard bounds this test's own work.
func TestTooLargeToolIsNeverOffered(t *testing.T) {
	e := newTestEnv(t)
	e.write(map[string]any{"s": e.server("-name", "s")}, nil)
	c := config.Load(config.Options{ZotHome: e.home, ProjectDir: e.project, LookupEnv: e.lookup})
	srv, _ := c.Server("s")
	huge := `{"type":"object","properties":{"p":{"type":"string","description":"` + strings.Repeat("x", extension.MaxLine+1024) + `"}}}`
	cachePath := cache.DefaultPath(e.home)
	if _, err := cache.Update(ctxGuard(t), cachePath, map[string]*cache.Server{"s": {Fingerprint: srv.Fingerprint(), Tools: []cache.Tool{
		{Name: "huge_tool", Description: "A tool with a huge schema.", InputSchema: json.RawMessage(huge)},
		{Name: "small_tool", Description: "A small tool.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	for i, want := range []startPath{pathDecoded, pathPayloads, pathSent} {
		switch want {
		case pathPayloads:
			waitSent(t, cachePath)
			dropSent(t, cachePath)
		case pathSent:
			waitSent(t, cachePath)
		}
		got := startAndCheck(t, e, func(b *Bridge, h *exttest.Host, frames []string) {
			for _, f := range frames {
				if strings.Contains(f, "mcp__s__huge_tool") {
					t.Errorf("start %d: huge_tool was registered", i)
				}
			}
			if !slices.ContainsFunc(frames, func(f string) bool { return strings.Contains(f, `"name":"mcp__s__small_tool"`) }) {
				t.Errorf("start %d: small_tool was not registered", i)
			}
			for _, q := range []string{"select:mcp__s__huge_tool,mcp__s__small_tool", "huge tool schema"} {
				r, err := h.CallTool(ctxGuard(t), "q"+q, SearchToolName, map[string]any{"query": q})
				if err != nil {
					t.Fatal(err)
				}
				text := ""
				for _, c := range r.Content {
					text += c.Text
				}
				if slices.Contains(r.ActivateTools, "mcp__s__huge_tool") {
					t.Errorf("start %d: search %q activates huge_tool: %v", i, q, r.ActivateTools)
				}
				if !strings.Contains(text, "cannot be loaded: the host could not take their definitions; /mcp <server> names them") {
					t.Errorf("start %d: search %q does not say why huge_tool is not offered:\n%s", i, q, text)
				}
			}
			r, err := h.Command(ctxGuard(t), "d", "mcp", "s")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Display, "not registered: 1 the model cannot load: huge_tool (its definition is 4195") {
				t.Errorf("start %d: /mcp s does not name huge_tool with the reason:\n%s", i, r.Display)
			} else if !strings.Contains(r.Display, " bytes; the host reads at most 4194302 for one tool)") {
				t.Errorf("start %d: /mcp s gives another reason:\n%s", i, r.Display)
			}
		})
		if got != want {
			t.Fatalf("start %d registered by %s, want %s", i, got, want)
		}
	}
}

// startAndCheck runs a bridge through hello_ack → ready as a new host, lets the work
// after ready finish, runs check and stops it; it returns how the start registered.
func startAndCheck(t *testing.T, e *testEnv, check func(b *Bridge, h *exttest.Host, frames []string)) startPath {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(logs).Level(zerolog.DebugLevel),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	h, in, out := exttest.NewPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- extension.Run(ctx, in, out, b, extension.Options{Name: "mcp"}) }()
	gctx := ctxGuard(t)
	h.ExpectHello(gctx)
	var frames []string
	for _, f := range h.Handshake(gctx, exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}}) {
		frames = append(frames, string(f.Raw))
	}
	select {
	case <-b.afterReadyDone:
	case <-gctx.Done():
		t.Fatal("the work after ready did not end")
	}
	check(b, h, frames)
	if err := h.Shutdown(gctx); err != nil {
		t.Fatal(err)
	}
	<-done
	cctx, ccancel := context.WithTimeout(context.Background(), guard)
	defer ccancel()
	b.Close(cctx)
	switch l := logs.String(); {
	case strings.Contains(l, `"sent":true,"message":"registering from the startup file"`):
		return pathSent
	case strings.Contains(l, "registering from the startup file"):
		return pathPayloads
	}
	return pathDecoded
}
