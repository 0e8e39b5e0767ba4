package serve

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestServeLoad: 100 clients at once, half of each era, make 20 calls each through one
// instance over HTTP, spread over 8 backends. Every call's text is an id of its own and
// the backend answers with its own name and that id: every answer comes back, to the
// call that asked, from the backend it was sent to, once. Nothing is left on the call
// board afterwards.
func TestServeLoad(t *testing.T) {
	t.Parallel()
	const clients, calls, backends = 100, 20, 8
	var names []string
	for i := range backends {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	f := newFixture(t, Options{Tools: ToolsAll}, names...)
	u := serveGuarded(t, f)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	t.Cleanup(hc.CloseIdleConnections)
	ctx := testCtx(t)

	var mu sync.Mutex
	answered := map[string]int{} // id → answers received for it
	var problems []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for ci := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			era := mcp.LATEST_PROTOCOL_VERSION
			if ci%2 == 1 {
				era = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			}
			c, err := newHTTPClient(ctx, u, era, hc)
			if err != nil {
				fail("client %d: %v", ci, err)
				return
			}
			defer func() { _ = c.Close() }()
			for k := range calls {
				backend := names[(ci+k)%backends]
				id := fmt.Sprintf("c%d.%d", ci, k)
				req := mcp.CallToolRequest{}
				req.Params.Name = "mcp__" + backend + "__echo"
				req.Params.Arguments = map[string]any{"text": id}
				res, err := c.CallTool(ctx, req)
				if err != nil {
					fail("call %s to %s: %v", id, backend, err)
					continue
				}
				text := ""
				if len(res.Content) == 1 {
					if tc, ok := res.Content[0].(mcp.TextContent); ok {
						text = tc.Text
					}
				}
				sc, _ := res.StructuredContent.(map[string]any)
				if want := backend + ": " + id; text != want || res.IsError || sc["text"] != id {
					fail("call %s to %s answered %q (structured %v, error %v), want %q", id, backend, text, res.StructuredContent, res.IsError, want)
				}
				mu.Lock()
				answered[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	if len(answered) != clients*calls {
		t.Errorf("%d calls answered, want %d", len(answered), clients*calls)
	}
	for id, n := range answered {
		if n != 1 {
			t.Errorf("call %s answered %d times", id, n)
		}
	}
	if n := f.srv.calls.count(); n != 0 {
		t.Errorf("%d calls left on the board after every call was answered", n)
	}
}
