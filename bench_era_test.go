package main

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// BenchmarkFirstCallEra times the first call to a sleeping stdio server, through the
// bridge: the spawn, the negotiation of the era and the call, each iteration with a new
// bridge (untimed) whose cache lists the server's tools. The eras:
//
//   - legacy-pinned: "protocolVersion": "2025-11-25", initialize without a probe: what
//     every connection did before the era was negotiated (today's legacy figure);
//   - legacy: a legacy server the cache remembers as one (no probe);
//   - modern: a server of both eras, remembered as modern (server/discover, then the
//     call in the stateless protocol);
//   - legacy-unknown: a legacy server met for the first time (the probe, its
//     method-not-found, then initialize): paid once per server, then remembered.
//
// ms/first-call is the median of the iterations; ns/op their sum.
func BenchmarkFirstCallEra(b *testing.B) {
	cases := []struct {
		name   string
		extra  []string
		pin    string
		forget bool
		want   string // the era the refresh remembered
	}{
		{name: "legacy-pinned", pin: "2025-11-25", want: "2025-11-25"},
		{name: "legacy", extra: []string{"-discover", "legacy"}, want: "2025-11-25"},
		{name: "modern", want: "2026-07-28"},
		{name: "legacy-unknown", extra: []string{"-discover", "legacy"}, forget: true, want: "2025-11-25"},
	}
	for _, c := range cases {
		b.Run("era="+c.name, func(b *testing.B) {
			h := newHome(b)
			srv := h.server("fake", c.extra...)
			if c.pin != "" {
				srv["protocolVersion"] = c.pin
			}
			h.writeConfig(map[string]any{"fake": srv}, "")
			h.refresh() // lists the tools and remembers the era
			path := cache.DefaultPath(h.dir)
			if f, err := cache.Read(path); err != nil || f.Servers["fake"] == nil || f.Servers["fake"].Protocol != c.want {
				b.Fatalf("after the refresh the cache remembers %+v (%v), want %s", f.Servers["fake"], err, c.want)
			}
			saved, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			if c.forget {
				saved = forgetProtocols(b, saved)
			}
			ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
			defer cancel()
			var took []float64
			i := 0
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(path, saved, 0o600); err != nil {
					b.Fatal(err)
				}
				host, _, stderr := h.startHost(ctx)
				b.StartTimer()
				t0 := time.Now()
				callOK(ctx, b, host, "first"+strconv.Itoa(i), "mcp__fake__echo", map[string]any{"text": "hi"})
				took = append(took, float64(time.Since(t0).Microseconds())/1000)
				b.StopTimer()
				h.stopHost(ctx, host, stderr)
				b.StartTimer()
				i++
			}
			slices.Sort(took)
			b.ReportMetric(took[len(took)/2], "ms/first-call")
		})
	}
}

// forgetProtocols is a cache file without the remembered eras.
func forgetProtocols(b *testing.B, data []byte) []byte {
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		b.Fatal(err)
	}
	servers, _ := f["servers"].(map[string]any)
	for _, e := range servers {
		if m, ok := e.(map[string]any); ok {
			delete(m, "protocol")
			delete(m, "protocolKey")
		}
	}
	out, err := json.Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
