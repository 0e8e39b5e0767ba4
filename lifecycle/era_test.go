package lifecycle

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/session"
	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/fake"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// eraHost is a Host that records the revisions it is told a server learned; nothing
// else of it is used by these servers.
type eraHost struct {
	Host
	mu      sync.Mutex
	learned []string
}

func (h *eraHost) SessionOptions(*Server) []client.ClientOption { return nil }

func (h *eraHost) Elicitor(*Server) client.ElicitationHandler { return nil }

func (h *eraHost) Sampler(*Server) client.SamplingHandler { return nil }

func (h *eraHost) CallMeta(context.Context) *mcp.Meta { return nil }

func (h *eraHost) ProtocolLearned(_ *Server, p string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.learned = append(h.learned, p)
}

func (h *eraHost) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.learned...)
}

// eraStdio is a fake stdio server with -discover mode behind a Server, counting its
// starts and the probes and handshakes it receives: in the test's process behind a pipe
// session (the stdio framing without a process), or (wire) the fakemcp process.
type eraStdio struct {
	dir, starts, record string
	cfg                 *config.Server
	wire                bool
}

func newEraStdio(t *testing.T, mode string) *eraStdio { return newEraStdioOn(t, mode, false) }

func newEraStdioOn(t *testing.T, mode string, wire bool) *eraStdio {
	t.Helper()
	e := &eraStdio{dir: t.TempDir(), wire: wire}
	e.starts, e.record = filepath.Join(e.dir, "starts"), filepath.Join(e.dir, "record")
	args := []string{"-starts", e.starts, "-record", e.record}
	if mode != "" {
		args = append(args, "-discover", mode)
	}
	command := os.Args[0] // never run: the connector serves it in process
	if wire {
		command = testutil.FakeServer(t)
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"s": map[string]any{"command": command, "args": args}}})
	if err := os.WriteFile(filepath.Join(e.dir, "mcp.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Load(config.Options{ZotHome: e.dir, ProjectDir: e.dir, LookupEnv: func(string) (string, bool) { return "", false }})
	if len(cfg.Servers) != 1 {
		t.Fatalf("servers %+v (problems %v)", cfg.Servers, cfg.Problems)
	}
	e.cfg = &cfg.Servers[0]
	return e
}

// deps wires d to serve the entry in the test's process behind a pipe session, or to
// spawn it when the test is a wire one.
func (e *eraStdio) deps(d *Deps) *Deps {
	if e.wire {
		return wired(d, nil)
	}
	d.Connector = ConnectFunc(func(ctx context.Context, cfg *config.Server, h session.Handlers) (session.Session, error) {
		serve := func(ctx context.Context, in io.Reader, out, stderr io.Writer) error {
			return fake.ServeStdio(ctx, cfg.Args, fake.Env{}, in, out, stderr)
		}
		return session.OpenPipe(ctx, session.Pipe{Name: cfg.Name, Serve: serve, Log: zerolog.Nop()}, h)
	}).For
	return d
}

// server is a new Server of the entry, as a new process of the bridge makes it.
func (e *eraStdio) server(t *testing.T, h Host) *Server {
	s := New(e.cfg, e.deps(&Deps{Clock: clock.System{}, Log: zerolog.New(testutil.Log(t)), ProjectDir: e.dir, Surface: zotSurface{}, Host: h}))
	t.Cleanup(func() { s.Stop(ctxGuard(t)) })
	return s
}

func (e *eraStdio) counts(t *testing.T) (starts, discovers, inits int) {
	return testutil.CountLines(t, e.starts), testutil.CountMethod(t, e.record, string(mcp.MethodServerDiscover)), testutil.CountMethod(t, e.record, string(mcp.MethodInitialize))
}

// TestSleepingStdioServerEra: a sleeping stdio server is spawned once per wake in either
// era; one that exits on server/discover once more on its first wake only, and one that
// claims the modern era and then answers as a legacy server gets one reopen; each is
// remembered, in the process (the next wake) and through the host (the next process,
// which speaks the remembered era first).
func TestSleepingStdioServerEra(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode string
		// wire: the fakemcp process under the Server's own stdio path, the smoke test of
		// a real process exiting on the probe
		wire bool
		want string
		// after two wakes of one process, then one wake of the next
		starts, discovers, inits int
	}{
		// A modern server is probed on every wake ("discover as normal").
		{name: "modern", mode: "", want: mcp.LATEST_PROTOCOL_VERSION, starts: 3, discovers: 3, inits: 0},
		// A legacy server is probed once, then spoken to with initialize only.
		{name: "legacy", mode: "legacy", want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, starts: 3, discovers: 1, inits: 3},
		{name: "exits on discover", mode: "exit", want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, starts: 4, discovers: 1, inits: 3},
		{name: "exits on discover, a process", mode: "exit", wire: true, want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, starts: 4, discovers: 1, inits: 3},
		{name: "claims modern, behaves legacy", mode: "claim", want: mcp.LATEST_LEGACY_PROTOCOL_VERSION, starts: 4, discovers: 1, inits: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEraStdioOn(t, tt.mode, tt.wire)
			host := &eraHost{}
			s := e.server(t, host)
			for wake := range 2 {
				if got := mustCall(t, s, "echo", map[string]any{"text": "hi"}); got != "hi" {
					t.Fatalf("wake %d: %q", wake, got)
				}
				if p := s.Info().Protocol; p != tt.want {
					t.Fatalf("wake %d: protocol %q, want %q", wake, p, tt.want)
				}
				s.Stop(ctxGuard(t)) // idle sleep
			}
			if got := host.got(); len(got) != 1 || got[0] != tt.want {
				t.Errorf("the host was told %q, want [%s] once", got, tt.want)
			}
			// The next process, told what the cache remembered.
			next := e.server(t, host)
			next.SetProtocol(tt.want)
			if got := mustCall(t, next, "echo", map[string]any{"text": "again"}); got != "again" {
				t.Fatalf("next process: %q", got)
			}
			if st := next.Status(); st.Protocol != tt.want {
				t.Errorf("next process: status protocol %q, want %q", st.Protocol, tt.want)
			}
			if starts, discovers, inits := e.counts(t); starts != tt.starts || discovers != tt.discovers || inits != tt.inits {
				t.Errorf("starts %d, server/discover %d, initialize %d; want %d, %d, %d", starts, discovers, inits, tt.starts, tt.discovers, tt.inits)
			}
		})
	}
}

// TestUnansweredProbeIsNotRemembered: a server that does not answer server/discover in
// time is spoken to in the legacy era, but that era is not remembered (a server slow to
// start looks the same): the next wake probes again and the host is told nothing. Before,
// one slow first start pinned a server to the legacy era for good.
func TestUnansweredProbeIsNotRemembered(t *testing.T) {
	t.Parallel()
	e := newEraStdio(t, "hang")
	host := &eraHost{}
	fake := clock.NewFake()
	s := New(e.cfg, e.deps(&Deps{Clock: fake, Log: zerolog.New(testutil.Log(t)), ProjectDir: e.dir, Surface: zotSurface{}, Host: host}))
	t.Cleanup(func() { s.Stop(ctxGuard(t)) })
	for wake := range 2 {
		type answer struct {
			text string
			err  error
		}
		done := make(chan answer, 1)
		go func() { // the test goroutine decides: no Fatal here
			r, err := s.Call(ctxGuard(t), "echo", map[string]any{"text": "hi"}, false)
			if err != nil {
				done <- answer{err: err}
				return
			}
			done <- answer{text: resultText(r)}
		}()
		testutil.AdvanceWhenWaiting(ctxGuard(t), t, fake, session.DefaultProbeTimeout)
		if got := <-done; got.err != nil || got.text != "hi" {
			t.Fatalf("wake %d: %q, %v", wake, got.text, got.err)
		}
		if in := s.Info(); in.Protocol != mcp.LATEST_LEGACY_PROTOCOL_VERSION || !in.ProtocolGuessed {
			t.Fatalf("wake %d: protocol %q (guessed %v), want the legacy era, guessed", wake, in.Protocol, in.ProtocolGuessed)
		}
		s.Stop(ctxGuard(t))
	}
	if got := host.got(); len(got) != 0 {
		t.Errorf("the host was told %q, want nothing", got)
	}
	// Each wake set the probe's timer (AdvanceWhenWaiting above waits for it), so each
	// probed; whether the server read a probe given up on at once is the machine's timing.
	if starts, _, inits := e.counts(t); starts != 2 || inits != 2 {
		t.Errorf("starts %d, initialize %d; want 2 each", starts, inits)
	}
}
