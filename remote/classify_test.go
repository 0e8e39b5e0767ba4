package remote

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/session"
)

// TestClassifyHTTPReportsLogin checks that classifying a failure only reports that the
// server wants a login: the server is marked by the caller, not as a side effect.
func TestClassifyHTTPReportsLogin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     ProbeInfo
		err   error
		login bool
	}{
		{"401 with an OAuth challenge", ProbeInfo{Status: http.StatusUnauthorized, OAuthChallenge: true}, errors.New("401"), true},
		{"mcp-go wants authorization", ProbeInfo{}, transport.ErrOAuthAuthorizationRequired, true},
		{"plain 401", ProbeInfo{Status: http.StatusUnauthorized}, errors.New("401"), false},
		{"500", ProbeInfo{Status: http.StatusInternalServerError}, errors.New("500"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewServer(&config.Server{Name: "r", Source: "mcp.json", URL: "https://example.invalid/mcp"},
				&Deps{Cmd: func(sub string, args ...string) string { return "/mcp " + sub }})
			f := s.classify(config.TransportStreamableHTTP, tt.p, tt.err)
			if f.NeedsLogin != tt.login || (tt.login && f.Kind != session.KindAuth) {
				t.Fatalf("failure %+v, want needsLogin %v", f, tt.login)
			}
			if s.NeedsLogin() {
				t.Fatal("classify marked the server as needing a login")
			}
		})
	}
}
