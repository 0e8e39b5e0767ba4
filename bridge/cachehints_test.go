package bridge

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
	"github.com/zot-mcp/mcp-bridge/trust"
)

// TestCacheHintsTTL: a server's ttlMs decides when its cached listing is due again, but
// never sooner than minRefreshAfter (a ttlMs of 0, mcp-go's default, would wake the server
// at every start): a start within it lists nothing, a start after it offers the cached
// tools and lists the server again in the background; a server without the hint (legacy)
// is never due by time. Before, no entry was ever due by time.
func TestCacheHintsTTL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ttl  string
		due  time.Duration
	}{
		{"longer than the floor", "7200000", 2 * time.Hour},
		{"shorter than the floor", "60000", minRefreshAfter},
		{"zero", "0", minRefreshAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			// none is a legacy server (mcp-go's modern one sends ttlMs 0 on every list).
			e.write(map[string]any{"ttl": e.server("-list-hints", tc.ttl+",public"), "none": e.server("-discover", "legacy")}, nil)
			b := e.bridge(extension.GenNew)
			if _, errs := b.Refresh(ctxGuard(t), []string{"ttl", "none"}); len(errs) > 0 {
				t.Fatalf("refresh: %v", errs)
			}
			file, err := cache.Read(b.opts.CachePath)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := file.Servers["ttl"].RefreshDue, e.clock.Now().Add(tc.due); !got.Equal(want) {
				t.Errorf("ttl's refresh is due at %v, want %v", got, want)
			}
			if due := file.Servers["none"].RefreshDue; !due.IsZero() {
				t.Errorf("a server without ttlMs is due at %v", due)
			}
			e.clock.Advance(tc.due - time.Second)
			if b := e.bridge(extension.GenNew); len(b.stale) != 0 {
				t.Errorf("a start within the ttl refreshes %v", b.stale)
			}
			e.clock.Advance(time.Second)
			b = e.bridge(extension.GenNew)
			if !slices.Equal(b.stale, []string{"ttl"}) {
				t.Errorf("a start after the ttl refreshes %v, want ttl only", b.stale)
			}
			offered := false
			for _, en := range b.catalog().Entries {
				offered = offered || en.Server == "ttl"
			}
			if !offered {
				t.Error("the due server's cached tools are not offered meanwhile")
			}
		})
	}
}

// TestPrivateListingOfAProjectServer: a project server's listing marked cacheScope
// "private" is cached for the project it was listed for only: the next start in that
// project offers it without waking the server, a start in another project with the same
// server entry has no entry (it lists the server itself, and its own listing is kept
// beside the first project's), and no start registers another project's private tools
// from the startup file either. A global server's private listing is cached as any other,
// as the user's own file holds it for that same configuration. Before, a project server's
// private listing was never written, so such a server was woken at every start.
func TestPrivateListingOfAProjectServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"g": e.server("-list-hints", "0,private")}, nil)
	p := e.server("-list-hints", "0,private")
	e.writeProject(map[string]any{"p": p})
	home, other := e.project, t.TempDir()
	writeProjectIn(t, other, map[string]any{"p": p})
	ctx := ctxGuard(t)
	b := e.bridge(extension.GenNew)
	fp := trust.Fingerprint(mustServer(t, b, "p").Config())
	for _, dir := range []string{home, other} {
		if err := trust.Approve(context.Background(), trust.DefaultPath(e.home), dir, map[string]string{"p": fp}, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	inOther := func() *Bridge {
		return loadBridge(t, Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(t)),
			Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()}, other, extension.GenNew)
	}
	offers := func(b *Bridge, tool string) bool {
		for _, en := range b.catalog().Entries {
			if en.Server == "p" && (tool == "" || en.Tool.Name == tool) {
				return true
			}
		}
		return false
	}

	b = e.bridge(extension.GenNew)
	if _, errs := b.Refresh(ctx, []string{"g", "p"}); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	file, err := cache.Read(b.opts.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	homeKey, otherKey := trust.ProjectKey(home), trust.ProjectKey(other)
	if e := file.Servers["p"]; e != nil {
		t.Errorf("the project server's private listing is in the entries every project uses: %d tools", len(e.Tools))
	}
	if e := file.Projects[homeKey]["p"]; e == nil || len(e.Tools) == 0 {
		t.Fatalf("the project server's private listing is not cached for its project: %+v", file.Projects)
	}
	if file.Servers["g"] == nil || len(file.Servers["g"].Tools) == 0 {
		t.Error("the global server's private listing is not cached")
	}

	// The next start in the same project: offered, not listed again, the server asleep.
	b = e.bridge(extension.GenNew)
	if slices.Contains(b.stale, "p") {
		t.Error("a start in the project that listed it lists the server again")
	}
	if !offers(b, "") {
		t.Error("a start in the project that listed it does not offer its cached tools")
	}
	wantState(t, mustServer(t, b, "p"), lifecycle.StateAsleep, "after a start from the cache")
	if info, _ := commands.Info(b.Commands(), "p"); info.Cache != commands.CacheFresh {
		t.Errorf("/mcp p in the project that listed it says the cache is %q, want fresh", info.Cache)
	}

	// Another project: no entry, nothing offered, until it lists the server itself.
	bo := inOther()
	if !slices.Contains(bo.stale, "p") {
		t.Error("a start in another project takes the first project's private listing as its entry")
	}
	if offers(bo, "") {
		t.Error("another project's private listing is offered")
	}
	if info, _ := commands.Info(bo.Commands(), "p"); info.Cache != commands.CacheMissing {
		t.Errorf("/mcp p in another project says the cache is %q, want missing", info.Cache)
	}
	if _, errs := bo.Refresh(ctx, []string{"p"}); len(errs) > 0 {
		t.Fatalf("refresh in the other project: %v", errs)
	}
	if file, _ = cache.Read(b.opts.CachePath); file.Projects[homeKey]["p"] == nil || file.Projects[otherKey]["p"] == nil {
		t.Fatalf("the two projects' private listings do not both stay: %v", slices.Collect(maps.Keys(file.Projects)))
	}
	if bo = inOther(); slices.Contains(bo.stale, "p") || !offers(bo, "") {
		t.Error("the other project's own private listing is not used at its next start")
	}

	// The startup file: the first project's listing, now without one tool, is what its
	// starts register, never what the other project's do (through the payloads the file
	// keeps for both). A tool added would be held back by the approval's pins.
	home1 := *file.Projects[homeKey]["p"]
	home1.Tools = slices.DeleteFunc(slices.Clone(home1.Tools), func(t cache.Tool) bool { return t.Name == "pid" })
	if _, _, err := cache.UpdatePrev(ctx, b.opts.CachePath, homeKey, map[string]*cache.Server{"p": &home1}, nil, e.clock.Now); err != nil {
		t.Fatal(err)
	}
	ack := func(dir string) exttest.Ack { return exttest.Ack{Cwd: dir, Capabilities: []string{"call_tool"}} }
	const pid, echo = `"name":"mcp__p__pid"`, `"name":"mcp__p__echo"`
	for i, start := range []struct {
		dir      string
		want     []string
		never    []string
		fromFile bool
	}{
		{dir: home, want: []string{echo}, never: []string{pid}},
		{dir: other, want: []string{echo, pid}, fromFile: true},
		{dir: home, want: []string{echo}, never: []string{pid}, fromFile: true},
	} {
		regs, how := oneStart(t, e, ack(start.dir))
		text := strings.Join(regs, "\n")
		if start.fromFile && how != pathPayloads {
			t.Errorf("start %d (%s) registered from the %s, want the startup file's payloads", i, start.dir, how)
		}
		for _, w := range start.want {
			if !strings.Contains(text, w) {
				t.Errorf("start %d (%s) does not register %s:\n%s", i, start.dir, w, text)
			}
		}
		for _, n := range start.never {
			if strings.Contains(text, n) {
				t.Errorf("start %d (%s) registers %s, which its project's listing does not have", i, start.dir, n)
			}
		}
	}
}

// writeProjectIn writes the project config of dir.
func writeProjectIn(t *testing.T, dir string, servers map[string]any) {
	t.Helper()
	raw, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	p := config.ProjectPath(dir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
