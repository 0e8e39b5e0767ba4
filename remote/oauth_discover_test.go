package remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestChallengeScopes: the scope of a Bearer challenge, quoted or not, among other
// parameters and challenges; none when it is absent.
func TestChallengeScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers []string
		want    []string
	}{
		{"quoted", []string{`Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="mcp:basic mcp:write"`}, []string{"mcp:basic", "mcp:write"}},
		{"first param", []string{`Bearer scope="files:read"`}, []string{"files:read"}},
		{"token form", []string{`Bearer error=insufficient_scope, scope=admin`}, []string{"admin"}},
		{"escaped quote and comma inside", []string{`Bearer realm="a \"b\", c", scope="s1"`}, []string{"s1"}},
		{"case", []string{`Bearer SCOPE="up"`}, []string{"up"}},
		{"second challenge", []string{`Basic realm="x"`, `Bearer scope="two"`}, []string{"two"}},
		{"not a suffix match", []string{`Bearer xscope="no", resource_metadata="http://x/m"`}, nil},
		{"scope inside a quoted value", []string{`Bearer realm="scope=evil"`}, nil},
		{"none", []string{`Bearer resource_metadata="http://x/m"`}, nil},
		{"no header", nil, nil},
		{"unterminated", []string{`Bearer scope="abc`}, []string{"abc"}},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.headers {
			h.Add("WWW-Authenticate", v)
		}
		if got := challengeScopes(h); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDiscoverResourceProbes: the 401 challenge is found whether the server refuses the
// GET or, like servers that do not serve GET on the MCP endpoint, only the POST; a legacy
// SSE server gets only the GET, and a server that refuses nothing gives no challenge.
func TestDiscoverResourceProbes(t *testing.T) {
	t.Parallel()
	const chal = `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="s"`
	tests := []struct {
		name      string
		transport config.Transport
		status    map[string]int // by method
		want      bool
		methods   string
	}{
		{"get refused", config.TransportStreamableHTTP, map[string]int{"GET": 401, "POST": 401}, true, "GET"},
		{"only post refused", config.TransportStreamableHTTP, map[string]int{"GET": 404, "POST": 401}, true, "GET POST"},
		{"get 405, post refused", config.TransportStreamableHTTP, map[string]int{"GET": 405, "POST": 401}, true, "GET POST"},
		{"nothing refused", config.TransportStreamableHTTP, map[string]int{"GET": 405, "POST": 400}, false, "GET POST"},
		{"sse: get only", config.TransportSSE, map[string]int{"GET": 404, "POST": 401}, false, "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method)
				mu.Unlock()
				st := tt.status[r.Method]
				if st == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", chal)
				}
				w.WriteHeader(st)
			}))
			defer srv.Close()
			h, err := discoverResource(context.Background(), srv.Client(), &config.Server{URL: srv.URL + "/mcp", Transport: tt.transport})
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Get("WWW-Authenticate") == chal; got != tt.want {
				t.Errorf("challenge found %v, want %v (headers %v)", got, tt.want, h)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := strings.Join(methods, " "); got != tt.methods {
				t.Errorf("requests %q, want %q", got, tt.methods)
			}
		})
	}
}
