package bridge

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
)

// TestBackgroundAfterClose: background work asked for while Close waits, or after, does
// not start, and nothing started races Close's wait (under -race). Before, a server's
// list_changed arriving during Close added to the WaitGroup being waited on.
func TestBackgroundAfterClose(t *testing.T) {
	t.Parallel()
	b := loadBridge(t, Options{ZotHome: t.TempDir(), LookupEnv: func(string) (string, bool) { return "", false },
		Clock: newFakeClock(), Log: zerolog.Nop(), Resolver: noDNS()}, t.TempDir(), extension.GenNew)
	var ran atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 20 {
				b.background(func() { ran.Add(1) })
			}
		}()
	}
	close(start)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b.Close(ctx)
	wg.Wait()
	before := ran.Load()
	if b.background(func() { ran.Add(1) }) {
		t.Fatal("background work started after Close")
	}
	if got := ran.Load(); got != before {
		t.Fatalf("%d pieces of work ran after Close", got-before)
	}
}
