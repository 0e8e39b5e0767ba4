package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestIdleClosedMark: only a request that died on a connection taken from the idle pool,
// before any answer and not by its own deadline, is said not to have reached the server.
func TestIdleClosedMark(t *testing.T) {
	t.Parallel()
	broke := errors.New("write: broken pipe")
	cases := []struct {
		name             string
		reused, answered bool
		err              error
		want             bool
	}{
		{"stale idle connection", true, false, broke, true},
		{"a fresh connection", false, false, broke, false},
		{"answer begun", true, true, broke, false},
		{"deadline", true, false, fmt.Errorf("post: %w", context.DeadlineExceeded), false},
		{"cancelled", true, false, fmt.Errorf("post: %w", context.Canceled), false},
		{"net timeout", true, false, &net.OpError{Op: "read", Err: timeoutErr{}}, false},
		{"no error", true, false, nil, false},
	}
	for _, tc := range cases {
		var c connTrace
		c.idleReused.Store(tc.reused)
		c.answered.Store(tc.answered)
		var ic *IdleClosedError
		if got := errors.As(c.mark(tc.err), &ic); got != tc.want {
			t.Errorf("%s: marked %v, want %v", tc.name, got, tc.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestServerClosedIdleIsUnreachable: a request written into a pooled connection that the
// server no longer reads fails before any answer; RoundTrip's trace marks it, and it is
// worded as an unreachable server that did not run the call, not as a tool failure (which
// made TestHTTPServerGoneDuringSession fail now and then). A reset after the answer began
// stays a call that may have run.
func TestServerClosedIdleIsUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	var dials atomic.Int32
	var broken atomic.Bool
	base := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return &breakingConn{Conn: c, broken: &broken}, err
	}}
	defer base.CloseIdleConnections()
	tr := NewTransport(Options{Kind: config.TransportStreamableHTTP, URL: srv.URL, Base: base})
	post := func() error {
		// No GetBody: net/http may not replay it, as mcp-go's streaming POSTs.
		req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0"}`)))
		resp, err := tr.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return err
	}
	if err := post(); err != nil {
		t.Fatalf("first request: %v", err)
	}
	broken.Store(true)
	err := post() // the pooled connection's writes fail now
	var ic *IdleClosedError
	if !errors.As(err, &ic) {
		t.Fatalf("error %v (%T) not marked as a closed idle connection (dials %d)", err, err, dials.Load())
	}
	s := NewServer(&config.Server{Name: "r", URL: srv.URL, Transport: config.TransportStreamableHTTP},
		&Deps{Cmd: func(sub string, args ...string) string { return "/mcp " + sub }})
	wrapped := fmt.Errorf("transport error: failed to send request: %w", err)
	if f := s.classify(config.TransportStreamableHTTP, ProbeInfo{}, wrapped); f.Kind != session.KindUnreachable || f.MaybeRan {
		t.Fatalf("kind %d, maybe ran %v (%s); want unreachable, not run", f.Kind, f.MaybeRan, f.Msg)
	}
	reset := fmt.Errorf("transport error: %w", io.ErrUnexpectedEOF)
	if f := s.classify(config.TransportStreamableHTTP, ProbeInfo{}, reset); !f.MaybeRan {
		t.Fatalf("a reset after the request was read counted as not run: %s", f.Msg)
	}
}

// breakingConn fails its writes once broken is set.
type breakingConn struct {
	net.Conn
	broken *atomic.Bool
}

func (c *breakingConn) Write(p []byte) (int, error) {
	if c.broken.Load() {
		return 0, errors.New("write: broken pipe")
	}
	return c.Conn.Write(p)
}
