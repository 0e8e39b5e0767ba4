package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
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

// Authorization discovery (the MCP authorization spec, 2025-03-26 to 2026-07-28):
//
//   - Protected-resource metadata (RFC 9728) is looked for at the URL the 401's challenge
//     names (resource_metadata; on the server's own origin only), then at the well-known
//     URL with the server url's path inserted, then at the root well-known URL. The first
//     document that answers decides: its resource must be the server url or a path
//     prefix of it on the same origin (a resource naming another server would have
//     tokens minted for that one), and it is then sent exactly as published.
//   - Authorization-server metadata is looked for at the RFC 8414 and OpenID Connect
//     well-known URLs of the first authorization server the resource names; a document
//     whose issuer is not that server is refused (RFC 8414 section 3.3). Without one, the
//     default endpoints (/authorize, /token, /register) of the server's origin are used.
//   - A server that publishes no protected-resource metadata, and whose 401 names none,
//     is a 2025-03-26 server: its authorization server is its own origin, metadata at the
//     origin's well-known URL, else the default endpoints there.
//
// The bridge then chooses the client (oauth_register.go) and the scopes (oauth_scope.go)
// from what was found; mcp-go's OAuthHandler builds the authorization URL and exchanges
// the code. It discovers on its own, with other rules (no root lookups), so it
// is given exactly the documents found here: its discovery requests are answered from
// what discover read (replayTransport), and a request for anything else fails.

// asMetadata is authorization-server metadata (RFC 8414) with the fields mcp-go's type
// lacks.
type asMetadata struct {
	transport.AuthServerMetadata
	// IssParameterSupported: the authorization response carries iss (RFC 9207), which
	// must then be present and be this issuer.
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported: client ID metadata documents are accepted.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
}

// prmDoc is protected-resource metadata (RFC 9728), the fields the bridge uses.
type prmDoc struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
}

// authDiscovery is what discover found out about a server's authorization.
type authDiscovery struct {
	// Resource is the resource indicator (RFC 8707) of the tokens, exactly as the
	// protected-resource metadata publishes it ("" for a 2025-03-26 server: none is
	// sent).
	Resource string
	// PRMURL is where the protected-resource metadata was found ("": none).
	PRMURL string
	// PRMScopes are the scopes_supported of the protected-resource metadata.
	PRMScopes []string
	// AuthServer is the authorization server's URL as the resource names it (for a
	// 2025-03-26 server, the server's origin).
	AuthServer string
	// Meta is the authorization server's metadata; DefaultEndpoints says it is the
	// default endpoints, none having been published.
	Meta             *asMetadata
	DefaultEndpoints bool
	// Legacy: a 2025-03-26 server (no protected-resource metadata).
	Legacy bool

	// base is what mcp-go's handler gets as the server's URL, and replay the answers to
	// its discovery requests.
	base   string
	replay map[string]recordedAnswer
}

// recordedAnswer is a discovery GET's answer, read whole (readWhole's bound), or why
// there was none (err, status 0).
type recordedAnswer struct {
	status      int
	contentType string
	body        []byte
	err         error
}

// DiscoveryError is a discovery step that refused what the server or its authorization
// server published.
type DiscoveryError struct{ Reason string }

func (e *DiscoveryError) Error() string { return e.Reason }

func discoveryErrorf(format string, args ...any) error {
	return &DiscoveryError{Reason: fmt.Sprintf(format, args...)}
}

// discoverer runs one discovery: every GET's answer is recorded for replay.
type discoverer struct {
	hc     *http.Client
	secure func(string) bool
	d      *authDiscovery
}

// get fetches u and records its answer (status 0: the request failed).
func (ds *discoverer) get(ctx context.Context, u string) (recordedAnswer, error) {
	if a, ok := ds.d.replay[u]; ok {
		return a, a.err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return recordedAnswer{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ds.hc.Do(req)
	if err != nil {
		ds.d.replay[u] = recordedAnswer{err: err}
		return recordedAnswer{}, err
	}
	defer resp.Body.Close()
	// The client reads OAuth answers whole within maxAuthBody (oauthTransport); the
	// limit here only guards a client without it.
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthBody+1))
	if err != nil {
		return recordedAnswer{}, err
	}
	if len(body) > maxAuthBody {
		return recordedAnswer{}, &AuthTooLargeError{Host: req.URL.Host}
	}
	a := recordedAnswer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}
	ds.d.replay[u] = a
	return a, nil
}

// discover finds the protected-resource metadata and the authorization-server metadata
// of the server at serverURL; challenge is the headers of its 401 (nil: none).
func discover(ctx context.Context, hc *http.Client, secure func(string) bool, serverURL string, challenge http.Header) (*authDiscovery, error) {
	base := resourceBase(serverURL)
	su, err := url.Parse(base)
	if err != nil || su.Host == "" {
		return nil, discoveryErrorf("the server url cannot be parsed")
	}
	ds := &discoverer{hc: hc, secure: secure, d: &authDiscovery{replay: map[string]recordedAnswer{}}}
	origin := su.Scheme + "://" + su.Host
	advertised := advertisedPRM(challenge, su)
	candidates := []string{}
	if advertised != "" {
		candidates = append(candidates, advertised)
	}
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	// An answer that is no metadata document at all (a web page served for every path)
	// does not stop the search: the next URL may hold the document.
	var notMetadata error
	for _, c := range candidates {
		a, err := ds.get(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("fetching the protected-resource metadata: %w", err)
		}
		if a.status != http.StatusOK {
			continue
		}
		var prm prmDoc
		if json.Unmarshal(a.body, &prm) != nil {
			if notMetadata == nil {
				notMetadata = discoveryErrorf("the protected-resource metadata at %s is not valid JSON", textcut.Truncate(c, 200))
			}
			continue
		}
		if err := ds.usePRM(ctx, c, &prm, base); err != nil {
			return nil, err
		}
		return ds.d, nil
	}
	if notMetadata != nil {
		return nil, notMetadata
	}
	if advertised != "" {
		return nil, discoveryErrorf("the server's 401 names protected-resource metadata at %s, but neither it nor the well-known URLs answer with it", textcut.Truncate(advertised, 200))
	}
	// A 2025-03-26 server: its origin is its authorization server.
	ds.d.Legacy, ds.d.AuthServer, ds.d.base = true, origin, origin
	if err := ds.authServer(ctx, origin, true); err != nil {
		return nil, err
	}
	return ds.d, nil
}

// advertisedPRM is the resource_metadata URL of a Bearer challenge, when it is on the
// server's own origin ("" otherwise: RFC 9728 has the resource serve its own metadata,
// and another origin could send discovery anywhere).
func advertisedPRM(challenge http.Header, su *url.URL) string {
	for _, v := range challenge.Values("WWW-Authenticate") {
		raw, ok := authParam(v, "resource_metadata")
		if !ok {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || originOf(u) != originOf(su) {
			continue
		}
		return raw
	}
	return ""
}

// usePRM checks protected-resource metadata found at prmURL and discovers the
// authorization server it names.
func (ds *discoverer) usePRM(ctx context.Context, prmURL string, prm *prmDoc, base string) error {
	where := textcut.Truncate(prmURL, 200)
	if prm.Resource == "" {
		return discoveryErrorf("the protected-resource metadata at %s names no resource", where)
	}
	if !resourceBinds(prm.Resource, base) {
		return discoveryErrorf("the protected-resource metadata at %s is for the resource %s, not for this server's url; the bridge does not ask for tokens for another resource: check the server's url, or report it to the server's operator",
			where, textcut.Truncate(safetext.Sanitize(prm.Resource), 200))
	}
	if len(prm.AuthorizationServers) == 0 || prm.AuthorizationServers[0] == "" {
		return discoveryErrorf("the protected-resource metadata at %s names no authorization server", where)
	}
	as := prm.AuthorizationServers[0]
	if !ds.secure(as) {
		return discoveryErrorf("the authorization server %s must use HTTPS (plain HTTP only to a loopback host)", textcut.Truncate(as, 200))
	}
	ds.d.Resource, ds.d.PRMURL, ds.d.PRMScopes, ds.d.AuthServer, ds.d.base = prm.Resource, prmURL, prm.ScopesSupported, as, prm.Resource
	return ds.authServer(ctx, as, false)
}

// authServer discovers the metadata of the authorization server at as: the first of its
// well-known URLs that answers, with its issuer checked; else its default endpoints.
// sameOrigin (a 2025-03-26 server, whose own origin serves the metadata and no
// protected-resource metadata names an issuer to hold it to) accepts an issuer anywhere
// on that origin, as servers of that revision publish one with a path.
func (ds *discoverer) authServer(ctx context.Context, as string, sameOrigin bool) error {
	for _, u := range asMetadataURLs(as) {
		a, err := ds.get(ctx, u)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("fetching the authorization server's metadata: %w", err)
		}
		// Like a document that is not there (a refused redirect, a server that does not
		// answer on that path): the next URL, in the end the default endpoints, as mcp-go
		// and go-sdk do.
		if a.status != http.StatusOK {
			continue
		}
		var md asMetadata
		if json.Unmarshal(a.body, &md) != nil {
			return discoveryErrorf("the authorization server's metadata at %s is not valid JSON", textcut.Truncate(u, 200))
		}
		// RFC 8414 section 3.3: identical, but a final slash is commonly added or left out
		// (mcp-go and go-sdk ignore it too).
		if !issuerMatches(md.Issuer, as, sameOrigin) {
			return discoveryErrorf("the authorization server's metadata at %s names the issuer %s, not %s where it was looked up; it is not used: report it to the server's operator",
				textcut.Truncate(u, 200), textcut.Truncate(safetext.Sanitize(md.Issuer), 200), textcut.Truncate(as, 200))
		}
		ds.d.Meta = &md
		return nil
	}
	// The default endpoints, as mcp-go computes them: the origin's.
	au, err := url.Parse(as)
	if err != nil || au.Host == "" {
		return discoveryErrorf("the authorization server's URL cannot be parsed")
	}
	o := au.Scheme + "://" + au.Host
	ds.d.Meta = &asMetadata{AuthServerMetadata: transport.AuthServerMetadata{Issuer: o, AuthorizationEndpoint: o + "/authorize", TokenEndpoint: o + "/token", RegistrationEndpoint: o + "/register"}}
	ds.d.DefaultEndpoints = true
	return nil
}

// issuerMatches says whether metadata looked up for the authorization server as may name
// issuer: the same (RFC 8414 section 3.3; a final slash is commonly added or left out, and
// mcp-go and go-sdk ignore it too), or with sameOrigin any issuer on as's origin.
func issuerMatches(issuer, as string, sameOrigin bool) bool {
	if strings.TrimSuffix(issuer, "/") == strings.TrimSuffix(as, "/") {
		return true
	}
	if !sameOrigin {
		return false
	}
	iu, err1 := url.Parse(issuer)
	au, err2 := url.Parse(as)
	return err1 == nil && err2 == nil && iu.Host != "" && originOf(iu) == originOf(au)
}

// asMetadataURLs are the well-known URLs of an authorization server's metadata, in the
// MCP spec's order (RFC 8414 path insertion, then OpenID Connect Discovery), the same
// URLs mcp-go asks for.
func asMetadataURLs(as string) []string {
	u, err := url.Parse(as)
	if err != nil || u.Host == "" {
		return nil
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.Trim(u.Path, "/")
	if p == "" {
		u.Path = "/.well-known/oauth-authorization-server"
		a := u.String()
		u.Path = "/.well-known/openid-configuration"
		return []string{a, u.String()}
	}
	var out []string
	for _, path := range []string{"/.well-known/oauth-authorization-server/" + p, "/.well-known/openid-configuration/" + p, "/" + p + "/.well-known/openid-configuration"} {
		u.Path = path
		out = append(out, u.String())
	}
	return out
}

// resourceBinds says whether a published resource identifier is the server's url (base:
// without query or fragment) or a prefix of its path at a segment boundary on the same
// origin; a final slash on either is ignored. Servers at /mcp commonly publish their
// origin as the resource.
func resourceBinds(resource, base string) bool {
	r, err1 := url.Parse(resource)
	b, err2 := url.Parse(base)
	if err1 != nil || err2 != nil || r.Host == "" || r.User != nil || r.RawQuery != "" || r.Fragment != "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, b.Scheme) || canonicalHost(r) != canonicalHost(b) {
		return false
	}
	rp, bp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(b.EscapedPath(), "/")
	return rp == bp || strings.HasPrefix(bp, rp+"/")
}

// replayTransport answers mcp-go's discovery requests (GETs) from a discovery's record,
// and refuses a GET for anything discover did not read; other requests (registration,
// token) go on through next.
type replayTransport struct {
	d    *authDiscovery
	next http.RoundTripper
}

func (r *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return r.next.RoundTrip(req)
	}
	a, ok := r.d.replay[req.URL.String()]
	if !ok {
		return nil, discoveryErrorf("OAuth discovery asked for %s, which the bridge's discovery did not read", textcut.Truncate(req.URL.String(), 200))
	}
	if a.err != nil {
		return nil, a.err
	}
	h := http.Header{}
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Header: h, Body: io.NopCloser(bytes.NewReader(a.body)),
		ContentLength: int64(len(a.body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// handlerClient points mcp-go's handler at what d found: hc (the login's OAuth client)
// with d's answers replayed for discovery.
func (d *authDiscovery) handlerClient(hc *http.Client) *http.Client {
	c := *hc
	c.Transport = &replayTransport{d: d, next: hc.Transport}
	return &c
}

// setUp gives mcp-go's handler the server url and metadata URL that make its discovery
// ask for what d read (the PRM's resource, so that its own resource check holds, and the
// URL the PRM was found at; a 2025-03-26 server's origin).
func (d *authDiscovery) setUp(h *transport.OAuthHandler) {
	h.SetBaseURL(d.base)
	if d.PRMURL != "" {
		h.SetProtectedResourceMetadataURL(d.PRMURL)
	}
}

// sameMetadata says whether the handler's metadata is what d found (a guard: a
// difference means mcp-go discovered otherwise than the bridge expects).
func (d *authDiscovery) sameMetadata(md *transport.AuthServerMetadata) bool {
	m := d.Meta.AuthServerMetadata
	return md != nil && md.Issuer == m.Issuer && md.AuthorizationEndpoint == m.AuthorizationEndpoint &&
		md.TokenEndpoint == m.TokenEndpoint && md.RegistrationEndpoint == m.RegistrationEndpoint
}

// checkIss checks the iss of an authorization response (RFC 9207; present says whether
// it had one) against the issuer of the metadata, by simple string comparison: required
// when the authorization server says it sends it, and refused when it differs.
func (d *authDiscovery) checkIss(iss string, present bool) error {
	want := d.Meta.Issuer
	switch {
	case !present && d.Meta.IssParameterSupported:
		return discoveryErrorf("the authorization server says it names itself in its answer (RFC 9207 iss), but this answer has no iss; it was refused (a mix-up attack could send another server's code)")
	case present && iss != want:
		return discoveryErrorf("the authorization answer names the issuer %s, not %s where this login was started; it was refused (a mix-up attack could send another server's code)",
			textcut.Truncate(safetext.Sanitize(iss), 200), textcut.Truncate(want, 200))
	}
	return nil
}
