package repeats

import (
	"sync"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// TestCollapser: the first event of a key is reported, its repeats within the window are
// counted and handed over once when the window ends; keys are counted apart, and a quiet
// window hands over nothing.
func TestCollapser(t *testing.T) {
	c := clock.NewFake()
	var mu sync.Mutex
	got := map[string]int{}
	calls := 0
	r := New(c, time.Minute, func(key string, n int) {
		mu.Lock()
		defer mu.Unlock()
		got[key] += n
		calls++
	})
	tests := []struct {
		name   string
		key    string
		events int
		firsts int
	}{
		{"a flood", "a", 5000, 1},
		{"another key", "b", 3, 1},
		{"a single event", "c", 1, 1},
	}
	for _, tt := range tests {
		firsts := 0
		for range tt.events {
			if r.First(tt.key) {
				firsts++
			}
		}
		if firsts != tt.firsts {
			t.Errorf("%s: %d events reported in full, want %d", tt.name, firsts, tt.firsts)
		}
	}
	c.Advance(time.Minute)
	mu.Lock()
	if got["a"] != 4999 || got["b"] != 2 || calls != 2 {
		t.Errorf("after the window: counts %v in %d reports, want a=4999 b=2 in 2", got, calls)
	}
	mu.Unlock()
	if !r.First("a") {
		t.Error("the first event after the window was not reported in full")
	}
}
