package bridge

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/remote"
)

// TestClassifyHTTPReportsLogin checks that classifying a failure only reports that the
// server wants a login: the server is marked by the caller, not as a side effect.
func TestClassifyHTTPReportsLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     remote.ProbeInfo
		err   error
		login bool
	}{
		{"401 with an OAuth challenge", remote.ProbeInfo{Status: http.StatusUnauthorized, OAuthChallenge: true}, errors.New("401"), true},
		{"mcp-go wants authorization", remote.ProbeInfo{}, transport.ErrOAuthAuthorizationRequired, true},
		{"plain 401", remote.ProbeInfo{Status: http.StatusUnauthorized}, errors.New("401"), false},
		{"500", remote.ProbeInfo{Status: http.StatusInternalServerError}, errors.New("500"), false},
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
