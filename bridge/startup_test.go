package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// startSession runs a bridge against the fake host and returns its registration frames,
// a host to talk to, and the bridge. Everything is torn down when the test ends.
func startSession(t *testing.T, e *testEnv) ([]string, *exttest.Host, *testutil.SyncBuffer) {
	t.Helper()
	return startSessionWith(t, e, nil)
}

// startSessionWith is startSession with a chance to adjust the bridge before it runs.
func startSessionWith(t *testing.T, e *testEnv, adjust func(*Bridge)) ([]string, *exttest.Host, *testutil.SyncBuffer) {
	t.Helper()
	return startSessionAck(t, e, exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}}, adjust)
}

// startSessionAck is startSessionWith behind a host that answers hello with ack.
func startSessionAck(t *testing.T, e *testEnv, ack exttest.Ack, adjust func(*Bridge)) ([]string, *exttest.Host, *testutil.SyncBuffer) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(logs).Level(zerolog.DebugLevel),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
	if adjust != nil {
		adjust(b)
	}
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
	var frames []string
	for _, f := range h.Handshake(gctx, ack) {
		frames = append(frames, string(f.Raw))
	}
	return frames, h, logs
}

// TestStartupFileMatchesDecodedCache: registering from the startup file sends exactly the
// frames that decoding the cache would, a stale or missing startup file falls back to the
// cache and is rewritten after ready, and calls and searches work after a fast start.
func TestStartupFileMatchesDecodedCache(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha"), "beta": mergeMap(e.server("-name", "beta"), map[string]any{"disabledTools": []string{"pid"}})}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha", "beta"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	framesPath := cache.FramesPath(pre.opts.CachePath)
	if _, err := os.Stat(framesPath); err != nil {
		t.Fatalf("refresh did not write the startup file: %v", err)
	}

	var first *Bridge
	fast, h, logs := startSessionWith(t, e, func(b *Bridge) { first = b })
	if !strings.Contains(logs.String(), "registering from the startup file") || len(fast) < 2*13 {
		t.Fatalf("did not register from the startup file (%d frames): %s", len(fast), logs.String())
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__search_tools", map[string]any{"query": "add two numbers in beta"})
	if err != nil || len(r.ActivateTools) == 0 || r.ActivateTools[0] != "mcp__beta__add" {
		t.Fatalf("search after fast start: %v %v %q", err, r.ActivateTools, r.Text())
	}
	r, err = h.CallTool(ctxGuard(t), "2", "mcp__alpha__echo", map[string]any{"text": "fast"})
	if err != nil || r.Text() != "fast" {
		t.Fatalf("call after fast start: %v %q", err, r.Text())
	}
	for _, f := range fast {
		if strings.Contains(f, "mcp__beta__pid") {
			t.Fatal("a disabled tool was registered from the startup file")
		}
	}
	// The fast start writes what it sent into the startup file after ready: removed before
	// that, the file would be back for the next start.
	awaitAfterReady(t, first)

	// Without the startup file the cache is read by its lines (cache.ReadListings), or
	// decoded when it is laid out otherwise (here: indented by encoding/json): the same
	// frames, byte for byte, and calls and searches work once the catalog is built.
	raw, err := os.ReadFile(pre.opts.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	var relaid bytes.Buffer
	if err := json.Indent(&relaid, raw, "", "\t"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cache []byte
		log   string
	}{
		{"listings", raw, "registering from the tool cache's listings"},
		{"decoded", relaid.Bytes(), "registering from the decoded tool cache"},
	} {
		if err := os.WriteFile(pre.opts.CachePath, c.cache, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(framesPath); err != nil {
			t.Fatal(err)
		}
		slow, sh, slowLogs := startSession(t, e)
		if !strings.Contains(slowLogs.String(), c.log) {
			t.Fatalf("%s: did not log %q: %s", c.name, c.log, slowLogs.String())
		}
		if strings.Join(slow, "\n") != strings.Join(fast, "\n") {
			t.Fatalf("fast and %s startups differ:\nfast:\n%s\n\nslow:\n%s", c.name, strings.Join(fast, "\n"), strings.Join(slow, "\n"))
		}
		r, err := sh.CallTool(ctxGuard(t), "1", "mcp__search_tools", map[string]any{"query": "add two numbers in beta"})
		if err != nil || len(r.ActivateTools) == 0 || r.ActivateTools[0] != "mcp__beta__add" {
			t.Fatalf("%s: search: %v %v %q", c.name, err, r.ActivateTools, r.Text())
		}
		r, err = sh.CallTool(ctxGuard(t), "2", "mcp__alpha__echo", map[string]any{"text": c.name})
		if err != nil || r.Text() != c.name {
			t.Fatalf("%s: call: %v %q", c.name, err, r.Text())
		}
		waitFile(t, framesPath)
	}

	// A cache file changed behind its back makes the startup file stale: fall back.
	if _, err := cache.Update(ctxGuard(t), pre.opts.CachePath, map[string]*cache.Server{"other-project": {Fingerprint: "x", Tools: []cache.Tool{{Name: "t"}}}}, nil, time.Now); err != nil {
		t.Fatal(err)
	}
	stamp, _ := cache.StampOf(pre.opts.CachePath)
	if _, err := cache.ReadFrames(framesPath, stamp); err == nil {
		t.Fatal("startup file still matches a changed cache file")
	}
	again, _, _ := startSession(t, e)
	if strings.Join(again, "\n") != strings.Join(fast, "\n") {
		t.Fatal("registrations changed after falling back from a stale startup file")
	}
	waitFor(t, "the stale startup file rewritten after ready", func() bool {
		_, err := cache.ReadFrames(framesPath, stamp)
		return err == nil
	})
}

// awaitAfterReady waits until b's work after ready has ended.
func awaitAfterReady(t *testing.T, b *Bridge) {
	t.Helper()
	select {
	case <-b.afterReadyDone:
	case <-ctxGuard(t).Done():
		t.Fatal("the work after ready never ended")
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	waitFor(t, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
