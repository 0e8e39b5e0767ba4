package remote

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Headers are only sent to the server's own origin.
func TestHeaderTransportSameOriginOnly(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["other"] = r.Header.Get("X-Api-Key")
		mu.Unlock()
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["home"] = r.Header.Get("X-Api-Key")
		mu.Unlock()
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	}))
	defer home.Close()
	s := NewServer(&config.Server{Name: "r", URL: home.URL + "/mcp", Transport: config.TransportStreamableHTTP,
		Headers: map[string]string{"X-Api-Key": "k-0123456789"},
		Raw:     config.Raw{URL: home.URL + "/mcp", Headers: map[string]string{"X-Api-Key": "${API_KEY}"}}},
		&Deps{Clock: clock.NewFake()})
	rt := s.newHeaderTransport(s.cfg.Transport, nil)
	defer rt.CloseIdleConnections()
	resp, err := (&http.Client{Transport: rt}).Get(home.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if got["home"] != "k-0123456789" {
		t.Errorf("own origin got %q", got["home"])
	}
	if got["other"] != "" {
		t.Errorf("redirect target on another origin got the header %q", got["other"])
	}
}

func TestListenBackoffIsCapped(t *testing.T) {
	t.Parallel()
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second, 31 * time.Second, 59 * time.Second, 59 * time.Second}
	for fails, w := range want {
		if got := ListenBackoff(fails); got != w {
			t.Errorf("ListenBackoff(%d) = %s, want %s", fails, got, w)
		}
	}
	if got := ListenBackoff(1000); got != ListenMax-ListenRetry {
		t.Errorf("ListenBackoff(1000) = %s", got)
	}
}
