package bridge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// bridgeWith is e.bridge(extension.GenNew) with tune applied to its options first.
func (e *testEnv) bridgeWith(tune func(*Options)) *Bridge {
	opts := Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(e.t)),
		Supervisor: supervisorArgv(), Connect: e.connect(), Resolver: noDNS()}
	tune(&opts)
	b := New(opts)
	b.Load(e.project, extension.GenNew)
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		b.Close(ctx)
	})
	return b
}

// clientInfos returns the clientInfo of every initialize request the fake server recorded,
// and of every server/discover request (from its _meta, where the modern era carries it).
func clientInfos(t *testing.T, record string) (inits, discovers []map[string]string) {
	t.Helper()
	for _, l := range testutil.ReadRecord(t, record) {
		switch l.Method {
		case "initialize":
			var p struct {
				ClientInfo map[string]string `json:"clientInfo"`
			}
			if err := json.Unmarshal(l.Params, &p); err != nil {
				t.Fatalf("initialize params %s: %v", l.Params, err)
			}
			inits = append(inits, p.ClientInfo)
		case "server/discover":
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if err := json.Unmarshal(l.Params, &p); err != nil {
				t.Fatalf("server/discover params %s: %v", l.Params, err)
			}
			var ci map[string]string
			if raw := p.Meta[mcp.MetaKeyClientInfo]; raw != nil {
				if err := json.Unmarshal(raw, &ci); err != nil {
					t.Fatalf("server/discover clientInfo %s: %v", raw, err)
				}
			}
			discovers = append(discovers, ci)
		}
	}
	return inits, discovers
}

// TestInitializeReportsVersion checks that servers see the bridge's own version
// (Options.Version; with no version given, ClientVersion): in initialize in the legacy
// era, on a stdio start and on an HTTP re-initialization after the server forgot the
// session; in the _meta of the one server/discover of a modern start, over stdio and HTTP.
func TestInitializeReportsVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, version, want string
		http, modern        bool
	}{
		{"stdio", "9.8.7", "9.8.7", false, false},
		{"stdio default", "", lifecycle.ClientVersion, false, false},
		{"http reinit", "9.8.7", "9.8.7", true, false},
		{"stdio modern", "9.8.7", "9.8.7", false, true},
		{"stdio modern default", "", lifecycle.ClientVersion, false, true},
		{"http modern", "9.8.7", "9.8.7", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			var record string
			var entry map[string]any
			switch {
			case tt.http && tt.modern:
				var url string
				url, record = startFakeHTTP(t, "-http")
				entry = map[string]any{"url": url, "transport": "streamable-http"}
			case tt.http:
				var url string
				url, record = startFakeHTTP(t, "-http", "-forget-session-after", "2")
				entry = map[string]any{"url": url, "transport": "streamable-http"}
			default:
				record = t.TempDir() + "/rec.jsonl"
				entry = e.server("-record", record)
			}
			if !tt.modern {
				// initialize and sessions are the legacy era's.
				entry["protocolVersion"] = "2025-11-25"
			}
			e.write(map[string]any{"s": entry}, nil)
			s := e.srv(e.bridgeWith(func(o *Options) { o.Version = tt.version }), "s")
			mustCall(t, s, "add", map[string]any{"a": 1, "b": 2})
			wantInits, wantDiscovers := 1, 0
			switch {
			case tt.modern:
				wantInits, wantDiscovers = 0, 1
			case tt.http:
				mustCall(t, s, "add", map[string]any{"a": 2, "b": 3}) // forgotten session: initialize again
				wantInits = 2
			}
			inits, discovers := clientInfos(t, record)
			if len(inits) != wantInits || len(discovers) != wantDiscovers {
				t.Fatalf("%d initialize and %d server/discover requests, want %d and %d", len(inits), len(discovers), wantInits, wantDiscovers)
			}
			for i, ci := range append(inits, discovers...) {
				if ci["name"] != lifecycle.ClientName || ci["version"] != tt.want {
					t.Errorf("request %d: clientInfo %v, want name %q version %q", i+1, ci, lifecycle.ClientName, tt.want)
				}
			}
		})
	}
}
