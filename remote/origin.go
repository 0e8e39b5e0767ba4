package remote

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/redact"
)

// The redirect rule of every request the bridge makes for a server, MCP and OAuth alike.
// Go's client follows redirects itself and copies the first request's headers to every
// hop, Authorization included whenever the host name matches, whatever the port or the
// scheme; and mcp-go sets Authorization (and the session id) on the request it hands the
// client, before any check of ours. So the rule is applied where every hop passes, at the
// bottom of our RoundTrippers (Transport.prepare), not in a CheckRedirect that a copied or
// another client could lack:
//
//   - a hop from https to plain http is refused: nothing is sent there (RedirectError);
//   - a hop to another origin (scheme, host and port) than the chain's first request that
//     carries a body is refused too (RedirectError.Body): Go re-sends the body on a 307 or
//     308, and a body is bound to the origin it was written for as much as a header is. A
//     token request's holds the authorization code and PKCE verifier, or the refresh
//     token, and a client_secret_post client's secret; a registration's makes the bridge
//     a client of a server the user never saw, whose answer would then be used with the
//     first; an MCP POST's holds a tool call's arguments. RFC 9700 (section 4.12) and FAPI
//     2.0 tell an authorization server not to answer a request holding credentials with a
//     307; neither they nor RFC 6749 nor the MCP authorization spec say what a client
//     should do with one, so the client's side is ours to guard. A same-origin 307 keeps
//     working (a token endpoint moved to another path), which refusing every redirect of a
//     request with a body would break;
//   - any other hop to another origin (a GET, or a POST that a 301, 302 or 303 turned into
//     a GET without its body) carries none of the headers bound to the first origin:
//     Authorization (the bearer token, or the client credentials of a token request),
//     Proxy-Authorization, Cookie, the MCP session id, the configured headers, and the
//     Referer Go adds (the server url may carry a key in its query).
//
// A hop that comes back to the first origin is that origin's again.

// RedirectError is a redirect the bridge refused to follow: nothing was sent to its target.
type RedirectError struct {
	From, To string // origins, scheme://host:port
	// Body says why: the hop would have re-sent the request's body to another origin than
	// the chain's first (From); false: it went from https (From) to plain http.
	Body bool
	// Target is where the refused hop pointed, for messages (redact.DisplayURL: no user
	// info nor query; cut to maxTargetText).
	Target string
}

// maxTargetText bounds the target a RedirectError names: its message is cut where it is
// shown inside a longer one (an OAuth step's), and the reason must survive the cut.
const maxTargetText = 120

func (e *RedirectError) Error() string {
	if e.Body {
		// The reason comes first: mcp-go and the login put their own words before it.
		return fmt.Sprintf("redirect to another origin (%s) refused for safety: it would re-send the request's body, which may hold credentials or user data, to an origin it was not meant for; nothing was sent to it", e.Target)
	}
	return fmt.Sprintf("redirect from %s to %s refused: the bridge never follows https to plain http, so nothing was sent there", e.From, e.To)
}

// refuseRedirect closes req's body, which is not sent, and returns err.
func refuseRedirect(req *http.Request, err *RedirectError) (*http.Request, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, err
}

// hasBody says whether req sends a body (Go gives a hop the first request's body again on
// a 307 or 308, and http.NoBody, or none, otherwise).
func hasBody(req *http.Request) bool { return req.Body != nil && req.Body != http.NoBody }

// originOf is a URL's origin as the redirect rule compares them: scheme, host and port
// (the scheme's default when none is given), in lower case.
func originOf(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + canonicalHost(u) }

// guardRedirect applies the redirect rule to req before it is sent: req is a hop of a
// redirect chain when its Response is set. configured are the connection's configured
// headers (their names are stripped too). It returns the request to send (req itself
// when nothing changes) or a *RedirectError, having closed req's body.
func guardRedirect(req *http.Request, configured map[string]string) (*http.Request, error) {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		prev := first.Response.Request
		if strings.EqualFold(prev.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
			return refuseRedirect(req, &RedirectError{From: originOf(prev.URL), To: originOf(req.URL), Target: displayTarget(req.URL)})
		}
		first = prev
	}
	if first == req || originOf(first.URL) == originOf(req.URL) {
		return req, nil
	}
	if hasBody(req) {
		return refuseRedirect(req, &RedirectError{From: originOf(first.URL), To: originOf(req.URL), Body: true, Target: displayTarget(req.URL)})
	}
	req = req.Clone(req.Context())
	for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Referer", transport.HeaderKeySessionID} {
		req.Header.Del(k)
	}
	for k := range configured {
		req.Header.Del(k)
	}
	return req, nil
}

// displayTarget is a redirect's target for messages.
func displayTarget(u *url.URL) string {
	return textcut.Truncate(redact.DisplayURL(&config.Server{Raw: config.Raw{URL: u.String()}}), maxTargetText)
}
