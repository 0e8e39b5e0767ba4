package remote

import (
	"context"
	"net/http"
	"strings"

	"github.com/zot-mcp/mcp-bridge/config"
)

// discoverResource makes an unauthenticated request to the server url (redirects not
// followed) and returns the headers of a 401 answer (nil when the server did not refuse):
// its WWW-Authenticate challenge names the protected-resource metadata (RFC 9728) and
// the scope to request. Streamable HTTP servers need not answer GET at all (404/405),
// while every MCP request is a POST, which an OAuth-protected server refuses with its
// challenge before reading the body; so a GET that is not refused is followed by an
// empty POST.
func discoverResource(ctx context.Context, hc *http.Client, cfg *config.Server) (http.Header, error) {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	probe := func(method string) (http.Header, error) {
		req, err := http.NewRequestWithContext(ctx, method, cfg.URL, nil)
		if err != nil {
			return nil, err
		}
		accept := "application/json, text/event-stream"
		if cfg.Transport == config.TransportSSE {
			accept = "text/event-stream"
		}
		req.Header.Set("Accept", accept)
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		// Not drained: a legacy SSE server answers with an endless stream.
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized {
			return resp.Header, nil
		}
		return nil, nil
	}
	h, err := probe(http.MethodGet)
	if err != nil || h != nil || cfg.Transport == config.TransportSSE {
		return h, err
	}
	return probe(http.MethodPost)
}

// challengeScopes are the scopes a 401's Bearer challenge asks for (its scope parameter;
// the MCP authorization spec's first choice), nil when it names none: then none is
// requested and the authorization server applies its default.
func challengeScopes(h http.Header) []string {
	for _, v := range h.Values("WWW-Authenticate") {
		if sc, ok := authParam(v, "scope"); ok {
			return strings.Fields(sc)
		}
	}
	return nil
}

// authParam finds a parameter of a WWW-Authenticate value (RFC 9110 auth-params:
// name=token or name="quoted string", separated by commas; the scheme precedes the
// first).
func authParam(v, name string) (string, bool) {
	rest := v
	for {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return "", false
		}
		key := strings.TrimSpace(rest[:eq])
		if i := strings.LastIndexAny(key, " ,"); i >= 0 {
			key = key[i+1:]
		}
		rest = strings.TrimLeft(rest[eq+1:], " ")
		var val string
		if strings.HasPrefix(rest, `"`) {
			var sb strings.Builder
			i := 1
			for ; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) {
					i++
				}
				sb.WriteByte(rest[i])
			}
			val, rest = sb.String(), rest[min(i+1, len(rest)):]
		} else {
			end := strings.IndexAny(rest, ", ")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		if strings.EqualFold(key, name) {
			return val, true
		}
	}
}
