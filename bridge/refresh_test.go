package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestNotesTellTheTruthWhenTheCacheCannotBeWritten: with the cache unwritable (its
// directory is a regular file, which stops root too) the startup note used to say "tool
// cache updated … Run /reload-ext" and /mcp refresh counted the save failure as a server
// that failed. Both now say the tools were listed and nothing was saved.
func TestNotesTellTheTruthWhenTheCacheCannotBeWritten(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server(), "beta": e.server("-tools", "2")}, nil)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	he := e.startHost(func(b *Bridge) { b.opts.CachePath = filepath.Join(notDir, "mcp-tools-cache.json") })
	n, err := he.h.WaitNotify(ctxGuard(t), "could not be written")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listed the tools of alpha, beta", "nothing was saved"} {
		if !strings.Contains(n.Message, want) {
			t.Errorf("startup note lacks %q: %s", want, n.Message)
		}
	}
	if strings.Contains(n.Message, "/reload-ext") || strings.Contains(n.Message, "cache updated") || n.Level != "warn" {
		t.Errorf("startup note claims an update (level %s): %s", n.Level, n.Message)
	}
	r := he.fail("refresh")
	if !strings.HasPrefix(r.Display, "Listed 2 of 2 servers, but the tool cache could not be written") || strings.Contains(r.Display, "/reload-ext") {
		t.Errorf("/mcp refresh: %s", r.Display)
	}
	res := he.b.RefreshEach(ctxGuard(t), []string{"alpha", "beta"}, nil)
	if res.Listed != 2 || len(res.Changed) != 0 || len(res.Unsaved) != 2 || res.CacheErr == nil || len(res.Failed) != 0 {
		t.Errorf("RefreshReport = %+v", res)
	}
}

// TestRefreshSavesWhatItListedAfterItsTimeRanOut: the context bounds the listing, not
// the save. doctor gives the listing its slowest server's connect timeout, so a server
// that never answers resources/list used to use that time up, and the listing of every
// server that did answer was then dropped with "the tool cache could not be written
// (context deadline exceeded) … fix that (free space, permissions of the directory)".
func TestRefreshSavesWhatItListedAfterItsTimeRanOut(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server()}, nil)
	b := e.bridgeOn(extension.GenNew, commands.SurfaceCLI)
	ctx, cancel := context.WithCancel(ctxGuard(t))
	defer cancel()
	// each runs once the server is listed and before the save: the time is up from here on.
	rep := b.RefreshEach(ctx, []string{"alpha"}, func(RefreshResult) { cancel() })
	if rep.CacheErr != nil || rep.Listed != 1 || strings.Join(rep.Changed, ",") != "alpha" {
		t.Fatalf("report = %+v (save: %s)", rep, rep.SaveText())
	}
	if f, err := cache.Read(b.opts.CachePath); err != nil || f.Servers["alpha"] == nil {
		t.Fatalf("the listed tools are not in the cache file (%v)", err)
	}
}
