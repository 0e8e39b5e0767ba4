package extension

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
)

// countingWriter counts Write calls (≈ syscalls on a real pipe).
type countingWriter struct {
	w      io.Writer
	writes atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.w.Write(p)
}

// BenchmarkRegister2000 measures the time from writing hello_ack to reading
// ready when Setup registers 2,000 pre-encoded tool frames, and reports how
// many writes to stdout that took.
func BenchmarkRegister2000(b *testing.B) {
	const n = 2000
	frames := make([][]byte, n)
	for i := range frames {
		frames[i] = AppendToolFrame(nil, Tool{
			Name:        fmt.Sprintf("mcp__server__tool_%04d", i),
			Description: strings.Repeat("Does something useful with the given input. ", 8),
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path"},"limit":{"type":"integer"}},"required":["path"]}`),
			Deferred:    true,
		})
	}
	h := &testHandler{setup: func(_ context.Context, s *Session) error {
		for _, f := range frames {
			if err := s.RegisterToolFrame(f); err != nil {
				return err
			}
		}
		return nil
	}}
	var writes int64
	b.ReportAllocs()
	b.StopTimer()
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		host, in, out := exttest.NewPipe(b)
		cw := &countingWriter{w: out}
		errc := make(chan error, 1)
		go func() { errc <- Run(ctx, in, cw, h, Options{Name: "bench"}) }()
		host.ExpectHello(ctx)
		before := cw.writes.Load()

		b.StartTimer()
		regs := host.Handshake(ctx, exttest.Ack{})
		b.StopTimer()

		writes += cw.writes.Load() - before
		if len(regs) != n {
			b.Fatalf("got %d registrations", len(regs))
		}
		if err := host.Shutdown(ctx); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}
