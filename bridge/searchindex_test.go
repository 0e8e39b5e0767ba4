package bridge

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestSearchIndexBuiltAfterReady: once ready is sent the bridge builds the search index in
// the background, so the model's first search does not pay for it. The test waits for the
// build without searching (it would never come if only a search built the index), then
// checks the first search answers from that index.
func TestSearchIndexBuiltAfterReady(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(map[string]any{"alpha": e.server("-name", "alpha")}, nil)
	if _, errs := e.bridge(extension.GenNew).Refresh(ctxGuard(t), []string{"alpha"}); len(errs) > 0 {
		t.Fatal(errs)
	}

	b := New(Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(t)),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()})
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
	h.Handshake(gctx, exttest.Ack{Cwd: e.project, Capabilities: []string{"call_tool"}})

	cat := b.catalog()
	select {
	case <-cat.Indexed():
	case <-gctx.Done():
		t.Fatal("the search index was not built after ready (only a search would build it)")
	}
	r, err := h.CallTool(gctx, "1", SearchToolName, map[string]any{"query": "echo back a message"})
	if err != nil || len(r.ActivateTools) == 0 || r.ActivateTools[0] != "mcp__alpha__echo" {
		t.Fatalf("first search: %v %v %q", err, r.ActivateTools, r.Text())
	}
	if b.catalog().SearchIndex() != cat.SearchIndex() {
		t.Fatal("the catalog changed under the test; the index it waited for is not the one searched")
	}
}

// BenchmarkFirstSearch measures the first mcp__search_tools call of a session over the
// whole catalog (48 servers, 664 tools, all asleep), through the extension protocol:
//
//   - after-build: the search arrives once the background index build has finished, as
//     a model's first call does (it comes a model turn after ready); target ≤ 5 ms;
//   - right-after-ready: the search is sent the moment ready is read, the worst case: it
//     waits for whatever of the build remains.
//
// ready-to-index-ms is how long after ready the background build finished.
func BenchmarkFirstSearch(b *testing.B) {
	home, project := b.TempDir(), b.TempDir()
	data, err := os.ReadFile(testutil.CatalogPath(b))
	if err != nil {
		b.Fatal(err)
	}
	var c struct {
		Servers []struct {
			Name  string       `json:"name"`
			Tools []cache.Tool `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		b.Fatal(err)
	}
	servers := map[string]any{}
	for _, s := range c.Servers {
		// Never started: the benchmark calls no server tool.
		servers[s.Name] = map[string]any{"command": os.Args[0], "args": []string{"-never-started"}}
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(config.GlobalPath(home), raw, 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := config.Load(config.Options{ZotHome: home, ProjectDir: project})
	put := map[string]*cache.Server{}
	for _, s := range c.Servers {
		put[s.Name] = &cache.Server{ServerName: s.Name, Tools: s.Tools}
	}
	for i := range cfg.Servers {
		put[cfg.Servers[i].Name].Fingerprint = cfg.Servers[i].Fingerprint()
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if _, err := cache.Update(ctx, cache.DefaultPath(home), put, nil, time.Now); err != nil {
		b.Fatal(err)
	}

	for _, wait := range []bool{true, false} {
		name := "after-build"
		if !wait {
			name = "right-after-ready"
		}
		b.Run(name, func(b *testing.B) {
			var first, build []float64
			for b.Loop() {
				br := New(Options{ZotHome: home, Log: zerolog.Nop(), Supervisor: supervisorArgv(), Resolver: noDNS()})
				h, in, out := exttest.NewPipe(b)
				sctx, stop := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- extension.Run(sctx, in, out, br, extension.Options{Name: "mcp"}) }()
				h.ExpectHello(ctx)
				h.Handshake(ctx, exttest.Ack{Cwd: project, Capabilities: []string{"call_tool"}})
				ready := time.Now()
				cat := br.catalog()
				if wait {
					<-cat.Indexed()
					build = append(build, ms(time.Since(ready)))
				}
				t0 := time.Now()
				r, err := h.CallTool(ctx, "s", SearchToolName, map[string]any{"query": "create a github issue"})
				first = append(first, ms(time.Since(t0)))
				if err != nil || len(r.ActivateTools) == 0 {
					b.Fatalf("first search: %v %q", err, r.Text())
				}
				stop()
				<-done
				br.Close(ctx)
			}
			b.ReportMetric(median(first), "first-search-ms")
			if wait {
				b.ReportMetric(median(build), "ready-to-index-ms")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
