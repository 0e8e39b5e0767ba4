package bridge

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// primedEnv is a test env with one fake server "alpha" whose tools are in the cache and
// the startup file.
func primedEnv(t *testing.T) (*testEnv, string) {
	t.Helper()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha")}, nil)
	pre := e.bridge(extension.GenNew)
	if _, errs := pre.Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	return e, pre.opts.CachePath
}

// hasCommand reports whether the registrations include /mcp.
func hasCommand(frames []string) bool {
	for _, f := range frames {
		if strings.Contains(f, `"type":"register_command"`) && strings.Contains(f, `"name":"mcp"`) {
			return true
		}
	}
	return false
}

// TestDamagedStartupFileIsDiscardedAndRebuilt: a startup file whose server line claims
// 99999999999999 tools (with a valid checksum, so only the count check can catch it) used
// to panic in ReadFrames; setup then registered nothing, left every call unanswered and
// never rewrote the file. Now the file is discarded and logged, the tools come from the
// cache, and the file is rebuilt.
func TestDamagedStartupFileIsDiscardedAndRebuilt(t *testing.T) {
	t.Parallel()
	e, cachePath := primedEnv(t)
	framesPath := cache.FramesPath(cachePath)
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	body := "S\t\"alpha\"\tfp\t99999999999999\n\"echo\"\t\t\"description\":\"x\"\n"
	head := fmt.Sprintf("mcp-bridge-startup 5 %d %d\nX\t-\t\"\"\t0\t00000000\nP\t%d\t%08x\n", stamp.Size, stamp.ModTime, len(body), crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(framesPath, []byte(head+body), 0o600); err != nil {
		t.Fatal(err)
	}
	frames, h, logs := startSession(t, e)
	if !hasCommand(frames) || !strings.Contains(strings.Join(frames, "\n"), "mcp__alpha__echo") {
		t.Fatalf("registrations after a damaged startup file: %v", frames)
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "still here"})
	if err != nil || r.Text() != "still here" {
		t.Fatalf("call: %v %q", err, r.Text())
	}
	if !strings.Contains(logs.String(), "damaged startup file discarded") {
		t.Fatalf("the damaged file was not logged: %s", logs.String())
	}
	waitFor(t, "the startup file rebuilt", func() bool {
		fs, err := cache.ReadFrames(framesPath, stamp)
		return err == nil && len(fs["alpha"].Tools) > 0
	})
}

// TestSetupPanicStillServes: a panic while loading used to leave the host with no /mcp
// and every tool_call unanswered (the catalog was never published, so calls waited for
// it). Now /mcp is registered, calls and commands are answered, and a note says why.
func TestSetupPanicStillServes(t *testing.T) {
	t.Parallel()
	e, _ := primedEnv(t)
	frames, h, _ := startSessionWith(t, e, func(b *Bridge) {
		b.opts.StageHook = func(stage string) {
			if stage == "load" {
				panic("boom")
			}
		}
	})
	if !hasCommand(frames) {
		t.Fatalf("/mcp not registered after a setup panic: %v", frames)
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "x"})
	if err != nil || !r.IsError || r.Text() == "" {
		t.Fatalf("call after a setup panic: %v %+v", err, r)
	}
	if _, err := h.CallTool(ctxGuard(t), "2", SearchToolName, map[string]any{"query": "echo"}); err != nil {
		t.Fatalf("search after a setup panic: %v", err)
	}
	resp, err := h.Command(ctxGuard(t), "c1", "mcp", "status")
	if err != nil || resp.Error != "" {
		t.Fatalf("/mcp after a setup panic: %v %+v", err, resp)
	}
	if _, err := h.WaitNotify(ctxGuard(t), "boom"); err != nil {
		t.Fatalf("no note about the setup panic: %v", err)
	}
}

// TestUnreadableCacheAfterFastStart: the tools registered from a valid startup file keep
// working when the cache itself cannot be decoded (here damaged without changing its size
// or modification time, which keeps the startup file valid); they used to answer
// "Unknown MCP tool". A note names the cache file and the fix.
func TestUnreadableCacheAfterFastStart(t *testing.T) {
	t.Parallel()
	e, cachePath := primedEnv(t)
	st, err := os.Stat(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, cache.FramesPath(cachePath))
	if err := os.WriteFile(cachePath, bytes.Repeat([]byte{'#'}, int(st.Size())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(cachePath, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	_, h, logs := startSession(t, e)
	if !strings.Contains(logs.String(), "registering from the startup file") {
		t.Fatalf("did not start from the startup file: %s", logs.String())
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "routed"})
	if err != nil || r.IsError || r.Text() != "routed" {
		t.Fatalf("call with an unreadable cache: %v %q", err, r.Text())
	}
	n, err := h.WaitNotify(ctxGuard(t), cachePath)
	if err != nil || !strings.Contains(n.Message, "/mcp refresh") {
		t.Fatalf("note about the unreadable cache: %v %+v", err, n)
	}
}

// TestDamagedCacheReadByItsLines: a cache laid out as the bridge writes it but damaged in
// a value the line reader skips (an entry's time) cannot be decoded, yet its tools were
// registered from its lines at startup: they keep working from what was read, a note
// names the cache file and the fix without pointing at a startup file there is none of
// (nor at its permissions: it was just read), and every server is listed again, which
// rewrites the cache, as after a start that decoded it.
func TestDamagedCacheReadByItsLines(t *testing.T) {
	t.Parallel()
	e, cachePath := primedEnv(t)
	waitFile(t, cache.FramesPath(cachePath))
	if err := os.Remove(cache.FramesPath(cachePath)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(raw, []byte(`"updatedAt": "`))
	if at < 0 {
		t.Fatalf("no updatedAt in the cache:\n%s", raw)
	}
	at += len(`"updatedAt": "`)
	raw = append(raw[:at:at], append([]byte("not a time"), raw[at+bytes.IndexByte(raw[at:], '"'):]...)...)
	if err := os.WriteFile(cachePath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Read(cachePath); err == nil {
		t.Fatal("the damaged cache still decodes")
	}
	var b *Bridge
	_, h, logs := startSessionWith(t, e, func(br *Bridge) { b = br })
	if !strings.Contains(logs.String(), "registering from the tool cache's listings") {
		t.Fatalf("did not register from the cache's lines: %s", logs.String())
	}
	r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "routed"})
	if err != nil || r.IsError || r.Text() != "routed" {
		t.Fatalf("call with a damaged cache: %v %q", err, r.Text())
	}
	n, err := h.WaitNotify(ctxGuard(t), cachePath)
	if err != nil || !strings.Contains(n.Message, "/mcp refresh") || strings.Contains(n.Message, cache.FramesPath(cachePath)) ||
		strings.Contains(n.Message, "chmod") {
		t.Fatalf("note about the damaged cache: %v %+v", err, n)
	}
	select {
	case <-b.afterReadyDone:
	case <-ctxGuard(t).Done():
		t.Fatal("the work after ready did not end")
	}
	if f, err := cache.Read(cachePath); err != nil || f.Servers["alpha"] == nil {
		t.Fatalf("the damaged cache was not rewritten by a refresh: %v", err)
	}
}

// TestFinishStartupPanicStillRoutes: a panic while building the search tables, decoding
// the cache after a fast start or building the search index (in the background, after
// ready) used to crash
// the process, or with a recover leave every call waiting for a catalog that never came.
// Now the registered tools are routed and a note names the fault.
func TestFinishStartupPanicStillRoutes(t *testing.T) {
	t.Parallel()
	for _, stage := range []string{"tables", "finish", "index"} {
		t.Run(stage, func(t *testing.T) {
			t.Parallel()
			e, cachePath := primedEnv(t)
			waitFile(t, cache.FramesPath(cachePath))
			_, h, logs := startSessionWith(t, e, func(b *Bridge) {
				b.opts.StageHook = func(s string) {
					if s == stage {
						panic("kaboom at " + stage)
					}
				}
			})
			if !strings.Contains(logs.String(), "registering from the startup file") {
				t.Fatalf("did not start from the startup file: %s", logs.String())
			}
			r, err := h.CallTool(ctxGuard(t), "1", "mcp__alpha__echo", map[string]any{"text": "routed"})
			if err != nil || r.IsError || r.Text() != "routed" {
				t.Fatalf("call after a panic in the background: %v %q", err, r.Text())
			}
			if _, err := h.WaitNotify(ctxGuard(t), "kaboom at "+stage); err != nil {
				t.Fatalf("no note about the panic: %v", err)
			}
		})
	}
}

// TestOneLine: faults joined by errors.Join make one line of a note, not one line for the
// first fault and a line without the note's lead for the next.
func TestOneLine(t *testing.T) {
	t.Parallel()
	a, b := errors.New("decoding the tool cache: boom"), errors.New("building the search tables: bang")
	tests := []struct {
		err  error
		want string
	}{
		{a, "decoding the tool cache: boom"},
		{errors.Join(a, b), "decoding the tool cache: boom; building the search tables: bang"},
		{errors.Join(nil, a), "decoding the tool cache: boom"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.err); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
