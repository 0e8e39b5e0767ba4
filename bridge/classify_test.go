package bridge

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestClassifyHTTPReportsLogin checks that classifying a failure only reports that the
// server wants a login: the server is marked by the caller, not as a side effect.
func TestClassifyHTTPReportsLogin(t *testing.T) {
	tests := []struct {
		name  string
		p     probeInfo
		err   error
		login bool
	}{
		{"401 with an OAuth challenge", probeInfo{status: http.StatusUnauthorized, oauthChallenge: true}, errors.New("401"), true},
		{"mcp-go wants authorization", probeInfo{}, transport.ErrOAuthAuthorizationRequired, true},
		{"plain 401", probeInfo{status: http.StatusUnauthorized}, errors.New("401"), false},
		{"500", probeInfo{status: http.StatusInternalServerError}, errors.New("500"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(&config.Server{Name: "r", Source: "mcp.json", URL: "https://example.invalid/mcp"}, &serverDeps{})
			f := s.classifyHTTP(config.TransportStreamableHTTP, tt.p, tt.err)
			if f.needsLogin != tt.login || (tt.login && f.kind != KindAuth) {
				t.Fatalf("failure %+v, want needsLogin %v", f, tt.login)
			}
			if s.Status().NeedsLogin {
				t.Fatal("classifyHTTP marked the server as needing a login")
			}
		})
	}
}
