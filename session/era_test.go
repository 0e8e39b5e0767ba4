package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/fake"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

const (
	modernV = mcp.LATEST_PROTOCOL_VERSION
	legacyV = mcp.LATEST_LEGACY_PROTOCOL_VERSION
)

// eraServer is one fake server over stdio with -discover mode, counting its starts and
// recording what it receives: in the test's process behind a pipe session, or (cfg set)
// the fakemcp process.
type eraServer struct {
	args          []string
	cfg           *config.Server
	starts, recFn string
}

func newEraServer(t *testing.T, mode string) *eraServer {
	t.Helper()
	dir := t.TempDir()
	s := &eraServer{starts: filepath.Join(dir, "starts"), recFn: filepath.Join(dir, "record")}
	s.args = []string{"-starts", s.starts, "-record", s.recFn}
	if mode != "" {
		s.args = append(s.args, "-discover", mode)
	}
	return s
}

// newWireEraServer is newEraServer as the fakemcp process.
func newWireEraServer(t *testing.T, mode string) *eraServer {
	t.Helper()
	s := newEraServer(t, mode)
	bin := testutil.FakeServer(t)
	s.cfg = &config.Server{Name: "era", Source: "mcp.json", Command: bin, Args: s.args, Transport: config.TransportStdio,
		Raw: config.Raw{Command: bin, Args: s.args}}
	return s
}

func (s *eraServer) open(ctx context.Context, e Era) (Session, error) {
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if e.Clock == nil {
		e.Clock = clock.System{}
	}
	h := Handlers{Init: init, Era: e}
	if s.cfg == nil {
		serve := func(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
			return fake.ServeStdio(ctx, s.args, fake.Env{}, in, out, stderr)
		}
		return OpenPipe(ctx, Pipe{Name: "era", Serve: serve, Log: zerolog.Nop()}, h)
	}
	env := append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return OpenStdio(ctx, Stdio{Config: s.cfg, Env: env, Log: zerolog.Nop(), Clock: clock.System{}}, h)
}

func (s *eraServer) counts(t *testing.T) (starts, discovers, inits int) {
	return testutil.CountLines(t, s.starts), testutil.CountMethod(t, s.recFn, string(mcp.MethodServerDiscover)), testutil.CountMethod(t, s.recFn, string(mcp.MethodInitialize))
}

// TestStdioEra: every way a stdio server meets the probe ends on one era, with the
// process started once (twice only when it exits on the probe), and a remembered or
// pinned era skips or insists on the probe.
func TestStdioEra(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode string
		// wire: the fakemcp process, the one smoke test of the probe's restart over a
		// real process's exit.
		wire      bool
		era       Era
		want      string
		starts    int
		discovers int
		inits     int
	}{
		{name: "both eras: modern", mode: "", want: modernV, starts: 1, discovers: 1, inits: 0},
		{name: "legacy server", mode: "legacy", want: legacyV, starts: 1, discovers: 1, inits: 1},
		{name: "garbage discover", mode: "garbage", want: legacyV, starts: 1, discovers: 1, inits: 1},
		{name: "exits on discover", mode: "exit", want: legacyV, starts: 2, discovers: 1, inits: 1},
		{name: "exits on discover, a process", mode: "exit", wire: true, want: legacyV, starts: 2, discovers: 1, inits: 1},
		{name: "remembered legacy: no probe", mode: "", era: Era{Known: legacyV}, want: legacyV, starts: 1, discovers: 0, inits: 1},
		{name: "remembered modern", mode: "", era: Era{Known: modernV}, want: modernV, starts: 1, discovers: 1, inits: 0},
		{name: "pinned legacy: no probe", mode: "", era: Era{Pin: "2025-06-18"}, want: "2025-06-18", starts: 1, discovers: 0, inits: 1},
		{name: "pinned modern", mode: "", era: Era{Pin: modernV}, want: modernV, starts: 1, discovers: 1, inits: 0},
		{name: "modern-only server", mode: "modern", want: modernV, starts: 1, discovers: 1, inits: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := newEraServer(t, tt.mode)
			if tt.wire {
				srv = newWireEraServer(t, tt.mode)
			}
			sess, err := srv.open(ctx, tt.era)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer sess.Close(context.Background())
			if got := sess.Info().Protocol; got != tt.want {
				t.Errorf("protocol %q, want %q", got, tt.want)
			}
			// A request goes through in the era found.
			if _, _, err := sess.ListTools(ctx); err != nil {
				t.Fatalf("list: %v", err)
			}
			starts, discovers, inits := srv.counts(t)
			if starts != tt.starts || discovers != tt.discovers || inits != tt.inits {
				t.Errorf("starts %d, server/discover %d, initialize %d; want %d, %d, %d", starts, discovers, inits, tt.starts, tt.discovers, tt.inits)
			}
		})
	}
}

// TestStdioEraHungProbe: a server that never answers server/discover is spoken to with
// initialize once the probe's own deadline passes on the injected clock, on the same
// process.
func TestStdioEraHungProbe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := newEraServer(t, "hang")
	fake := clock.NewFake()
	type result struct {
		s   Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := srv.open(ctx, Era{Clock: fake})
		done <- result{s, err}
	}()
	// The probe's timer is set before the request is written; advancing at once could
	// give the probe up before the server read it, so the server's record comes first.
	testutil.WaitRecord(t, srv.recFn, time.Minute, func(l testutil.RecordLine) bool { return l.Method == string(mcp.MethodServerDiscover) })
	testutil.AdvanceWhenWaiting(ctx, t, fake, DefaultProbeTimeout)
	r := <-done
	if r.err != nil {
		t.Fatalf("open: %v", r.err)
	}
	defer r.s.Close(context.Background())
	if got := r.s.Info().Protocol; got != legacyV {
		t.Errorf("protocol %q, want %q", got, legacyV)
	}
	if starts, discovers, inits := srv.counts(t); starts != 1 || discovers != 1 || inits != 1 {
		t.Errorf("starts %d, server/discover %d, initialize %d; want 1 each", starts, discovers, inits)
	}
}

// TestStdioEraPinnedModernRefusesLegacy: pinned to 2026-07-28, a legacy server is not
// sent initialize, and the error says which field to remove.
func TestStdioEraPinnedModernRefusesLegacy(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := newEraServer(t, "legacy")
	_, err := srv.open(ctx, Era{Pin: modernV})
	var nm *NotModernError
	if !errors.As(err, &nm) || !strings.Contains(err.Error(), `remove "protocolVersion"`) {
		t.Fatalf("err = %v, want a NotModernError naming the field to remove", err)
	}
	if _, discovers, inits := srv.counts(t); discovers != 1 || inits != 0 {
		t.Errorf("server/discover %d, initialize %d; want 1, 0", discovers, inits)
	}
}

// TestStdioEraClaimedModern: a server that answers the probe as a modern server and
// then refuses the first request as a legacy one fails it with a ClaimedModernError
// (the caller reopens in the legacy era).
func TestStdioEraClaimedModern(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := newEraServer(t, "claim")
	sess, err := srv.open(ctx, Era{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer sess.Close(context.Background())
	_, _, err = sess.ListTools(ctx)
	var claimed *ClaimedModernError
	if !errors.As(err, &claimed) {
		t.Fatalf("list: %v, want a ClaimedModernError", err)
	}
	reopened, err := srv.open(ctx, Era{}.Legacy())
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer reopened.Close(context.Background())
	if _, _, err := reopened.ListTools(ctx); err != nil || reopened.Info().Protocol != legacyV {
		t.Fatalf("reopened in the legacy era: %v, protocol %q", err, reopened.Info().Protocol)
	}
}

// TestCheckDiscover: only a result that names the requested revision among
// supportedVersions, with capabilities, makes a modern server.
func TestCheckDiscover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, result string
		ok           bool
	}{
		{"modern", `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{}}`, true},
		{"empty", `{}`, false},
		{"null", `null`, false},
		{"not an object", `[1]`, false},
		{"legacy versions only", `{"supportedVersions":["2025-11-25"],"capabilities":{}}`, false},
		{"versions not strings", `{"supportedVersions":[1],"capabilities":{}}`, false},
		{"no capabilities", `{"supportedVersions":["2026-07-28"]}`, false},
		{"capabilities not an object", `{"supportedVersions":["2026-07-28"],"capabilities":"all"}`, false},
	}
	for _, tt := range tests {
		if why := checkDiscover(json.RawMessage(tt.result), modernV); (why == "") != tt.ok {
			t.Errorf("%s: %q", tt.name, why)
		}
	}
}

// TestProbeRetriedOnItsOwnVersion: a server that answers the client's first request with
// -32022 and data.supported naming the very version asked for gets the probe once more,
// and the connection speaks the modern era; before, mcp-go (which retries only for
// another version) fell back to initialize, which such a server refuses.
func TestProbeRetriedOnItsOwnVersion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := server.NewMCPServer("modern-only", "1", server.WithToolCapabilities(false))
	var mu sync.Mutex
	var methods []string
	var ids []string
	rejected := false
	inner := server.NewStreamableHTTPServer(srv)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		methods = append(methods, req.Method)
		ids = append(ids, string(req.ID))
		first := !rejected && r.Method == http.MethodPost
		rejected = rejected || first
		mu.Unlock()
		if first {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":[%q]}}}`,
				req.ID, mcp.LATEST_PROTOCOL_VERSION)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	defer hs.Close()
	c := openHTTP(t, ctx, hs.URL, "", nil)
	if p := c.Info().Protocol; !mcp.IsModernProtocol(p) {
		t.Fatalf("the connection speaks %q, want the modern era", p)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(methods, string(mcp.MethodInitialize)) || len(methods) < 2 || methods[0] != string(mcp.MethodServerDiscover) || methods[1] != string(mcp.MethodServerDiscover) {
		t.Errorf("requests %q, want server/discover twice and no initialize", methods)
	}
	if len(ids) >= 2 && ids[0] == ids[1] {
		t.Errorf("the probe was sent again with its first id %s; JSON-RPC ids are not reused", ids[0])
	}
}
