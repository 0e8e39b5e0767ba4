package bridge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/testutil"
	"github.com/zot-mcp/mcp-bridge/lifecycle"
)

// bridgeWith is e.bridge(extension.GenNew) with tune applied to its options first.
func (e *testEnv) bridgeWith(tune func(*Options)) *Bridge {
	opts := Options{ZotHome: e.home, LookupEnv: e.lookup, Clock: e.clock, Log: zerolog.New(testutil.Log(e.t)),
		Supervisor: supervisorArgv(), Resolver: noDNS()}
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

// clientInfos returns the clientInfo of every initialize request the fake server recorded.
func clientInfos(t *testing.T, record string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, l := range testutil.ReadRecord(t, record) {
		if l.Method != "initialize" {
			continue
		}
		var p struct {
			ClientInfo map[string]string `json:"clientInfo"`
		}
		if err := json.Unmarshal(l.Params, &p); err != nil {
			t.Fatalf("initialize params %s: %v", l.Params, err)
		}
		out = append(out, p.ClientInfo)
	}
	return out
}

// TestInitializeReportsVersion checks that servers see the bridge's own version in
// initialize (Options.Version), on a stdio start and on an HTTP re-initialization
// after the server forgot the session; with no version given, ClientVersion.
func TestInitializeReportsVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, version, want string
		http                bool
	}{
		{"stdio", "9.8.7", "9.8.7", false},
		{"stdio default", "", lifecycle.ClientVersion, false},
		{"http reinit", "9.8.7", "9.8.7", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			var record string
			if tt.http {
				var url string
				url, record = startFakeHTTP(t, "-http", "-forget-session-after", "2")
				e.write(map[string]any{"s": map[string]any{"url": url, "transport": "streamable-http"}}, nil)
			} else {
				record = t.TempDir() + "/rec.jsonl"
				e.write(map[string]any{"s": e.server("-record", record)}, nil)
			}
			s := e.srv(e.bridgeWith(func(o *Options) { o.Version = tt.version }), "s")
			mustCall(t, s, "add", map[string]any{"a": 1, "b": 2})
			wantInits := 1
			if tt.http {
				mustCall(t, s, "add", map[string]any{"a": 2, "b": 3}) // forgotten session: initialize again
				wantInits = 2
			}
			infos := clientInfos(t, record)
			if len(infos) != wantInits {
				t.Fatalf("%d initialize requests, want %d", len(infos), wantInits)
			}
			for i, ci := range infos {
				if ci["name"] != lifecycle.ClientName || ci["version"] != tt.want {
					t.Errorf("initialize %d: clientInfo %v, want name %q version %q", i+1, ci, lifecycle.ClientName, tt.want)
				}
			}
		})
	}
}
