package main

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkFirstStart installs with README.md's install block and the real zot on PATH
// (skipped without one), then measures spawn → hello of the installed extension started
// the way zot starts it: the first start after the install, and the median of b.N starts.
// zot waits for hello with no timeout and draws nothing meanwhile, so this is the stall a
// user sees at zot's start.
func BenchmarkFirstStart(b *testing.B) {
	in := installFromReadme(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var took []float64
	for b.Loop() {
		h, _, d := in.start(ctx, b)
		took = append(took, float64(d.Microseconds())/1000)
		b.StopTimer()
		if err := h.CloseStdin(); err != nil {
			b.Fatal(err)
		}
		_ = h.Wait(ctx) // exits with "stdin closed before hello_ack"; only the exit matters
		b.StartTimer()
	}
	first := took[0]
	slices.Sort(took)
	b.ReportMetric(first, "ms/first-hello")
	b.ReportMetric(took[len(took)/2], "ms/hello")
}
