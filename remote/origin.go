package remote

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
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
//   - a hop to another origin (scheme, host and port) than the chain's first request
//     carries none of the headers bound to that origin: Authorization (the bearer token,
//     or the client credentials of a token request), Proxy-Authorization, Cookie, the MCP
//     session id, the configured headers, and the Referer Go adds (the server url may
//     carry a key in its query).
//
// A hop that comes back to the first origin is that origin's again.

// RedirectError is a redirect the bridge refused to follow.
type RedirectError struct {
	From, To string // origins, scheme://host:port
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirect from %s to %s refused: the bridge never follows https to plain http, so nothing was sent there", e.From, e.To)
}

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
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, &RedirectError{From: originOf(prev.URL), To: originOf(req.URL)}
		}
		first = prev
	}
	if first == req || originOf(first.URL) == originOf(req.URL) {
		return req, nil
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
