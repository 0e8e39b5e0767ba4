package bridge

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// TestUnsafeFilesShownInMCP: with ZOT_HOME, the tool cache and the startup file writable
// by every user, /mcp warns about each, with the fix; an approval store another user can
// write approves nothing, and /mcp says so (and why the project server waits). Before, the
// bridge used them all silently, approvals included.
func TestUnsafeFilesShownInMCP(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"g": e.server()}, nil)
	e.writeProject(map[string]any{"p": e.server()})
	ctx := context.Background()
	b := e.bridge(extension.GenNew)
	fp := trust.Fingerprint(mustServer(t, b, "p").Config())
	store := trust.DefaultPath(e.home)
	if err := trust.Approve(ctx, store, e.project, map[string]string{"p": fp}, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if b := e.bridge(extension.GenNew); mustServer(t, b, "p").Pending() {
		t.Fatal("the approved server is pending before the store was made unsafe")
	}
	cachePath := cache.DefaultPath(e.home)
	if _, err := cache.Update(ctx, cachePath, map[string]*cache.Server{"g": {Fingerprint: "x"}}, nil, e.clock.Now); err != nil {
		t.Fatal(err)
	}
	frames := cache.FramesPath(cachePath)
	if err := os.WriteFile(frames, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{e.home: 0o777, cachePath: 0o666, frames: 0o666, store: 0o666} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}

	b = e.bridge(extension.GenNew)
	if !mustServer(t, b, "p").Pending() {
		t.Error("an approval from a world-writable store let the project server run")
	}
	text, err := b.Command(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	// The dashboard wraps long lines; read it as one line.
	has(t, "/mcp", strings.Join(strings.Fields(text), " "),
		"problem: warning: "+e.home+": writable by every user (mode 0777); it holds the config",
		"fix: chmod go-w "+e.home,
		"problem: warning: "+cachePath+": writable by every user (mode 0666); it is the tool cache",
		"fix: chmod go-w "+cachePath,
		"problem: warning: "+frames+": writable by every user (mode 0666); it is the startup file",
		"problem: "+store+": the approval store "+store+" is writable by every user (mode 0666), so another user could have approved servers in it: its approvals are not used",
		"chmod go-w "+store,
		"needs approval")
	// Approving does not rewrite the store either: that would make its content the user's.
	before, _ := os.ReadFile(store)
	if _, err := b.Command(ctx, "trust p"); err == nil || !strings.Contains(err.Error(), "chmod go-w "+store) {
		t.Errorf("/mcp trust p with a world-writable store: %v, want a refusal with the fix", err)
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Error("/mcp trust rewrote the world-writable store")
	}
}
