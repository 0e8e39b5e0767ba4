package main

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestServeLoadProcesses: serveLoadClients clients at once (half of each era) make
// serveLoadCalls calls each through one `mcp-bridge serve --http` process over
// serveLoadBackends real servers: every answer is its own call's and comes from the
// server it was sent to (the servers' echo names them), and after SIGTERM no server
// process is left. The in-process load test (serve/load_test.go) runs the same load
// under the race detector; this one through the built binary and its supervisors.
func TestServeLoadProcesses(t *testing.T) {
	t.Parallel()
	h := serveHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := h.startServe(ctx)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: serveLoadClients}}
	defer hc.CloseIdleConnections()
	if err := serveLoad(ctx, p, hc, 0); err != nil {
		t.Fatalf("%v\n%s", err, p.stderr)
	}
	p.stop(ctx, h)
}
