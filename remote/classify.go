package remote

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/safetext"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/session"
)

// WrongTransport says whether a failed attempt shows that the server speaks the other
// transport: a 4xx (other than 401/403) or an SSE endpoint event.
func WrongTransport(kind config.Transport, p ProbeInfo, err error) bool {
	if p.SSEEndpoint {
		return kind == config.TransportStreamableHTTP
	}
	if p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden {
		return false
	}
	if kind == config.TransportStreamableHTTP && errors.Is(err, transport.ErrLegacySSEServer) {
		return true
	}
	return p.Status >= 400 && p.Status < 500
}

// SessionLost says whether err means the server no longer knows our session: a 404 for a
// request that carried the session id, or mcp-go refusing to send because an earlier
// request (or the GET stream) met that 404. Either way the request did not run.
func SessionLost(p ProbeInfo, err error) bool {
	if !errors.Is(err, transport.ErrSessionTerminated) {
		return false
	}
	return p.Status == 0 || (p.Status == http.StatusNotFound && p.WithSession)
}

// ServerAnswered says whether err is the server's JSON-RPC error answer rather than a
// transport failure (mcp-go wraps every transport failure of a request in transport.Error).
func ServerAnswered(p ProbeInfo, err error) bool {
	var te *transport.Error
	return !errors.As(err, &te) && p.Status < 400
}

// NeedsLogin says whether a failure means the server wants an OAuth login.
func NeedsLogin(p ProbeInfo, err error) bool {
	return errors.Is(err, transport.ErrOAuthAuthorizationRequired) || (p.Status == http.StatusUnauthorized && p.OAuthChallenge)
}

// Failure is a classified HTTP-level failure.
type Failure struct {
	Kind     session.Kind // KindCall, KindAuth, KindUnreachable, KindTLS or KindBadResponse
	Msg      string
	MaybeRan bool // the request may have reached the server and run
	// NeedsLogin: the server wants an OAuth login (the caller marks the server).
	NeedsLogin bool
	// StepUp are the scopes a 403 insufficient_scope asked for, when the server's
	// credentials are an OAuth login's (the next login requests them too).
	StepUp []string
}

// Where is what a failure's wording names: the server's host, its config file, and how
// to fix credentials.
type Where struct {
	Host       string // host:port (HostPort)
	Source     string // the config file
	LoginCmd   string // the command that logs in to the server
	AuthHint   string // how to fix a 401/403 without OAuth
	HasHeaders bool   // the entry configures headers
	OAuth      bool   // the server's credentials are an OAuth login's
}

// Classify says what went wrong, from the error and what the server answered. It
// changes nothing: what follows from the failure is the caller's to do.
func Classify(kind config.Transport, p ProbeInfo, err error, w Where) Failure {
	host := w.Host
	var dnsErr *net.DNSError
	var addrErr *net.AddrError
	var opErr *net.OpError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr x509.CertificateInvalidError
	var verifyErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	var notMCP *NotMCPError
	var redirect *RedirectError
	var endpoint *EndpointError
	var foreign *session.ForeignReplyError
	var idleClosed *IdleClosedError
	switch {
	case errors.As(err, &dnsErr):
		return Failure{Kind: session.KindUnreachable, Msg: fmt.Sprintf("cannot resolve host %q (DNS lookup failed); check the url in %s", dnsErr.Name, w.Source)}
	case errors.As(err, &addrErr):
		return Failure{Kind: session.KindUnreachable, Msg: fmt.Sprintf("cannot resolve host %q (%s); check the url in %s", addrErr.Addr, addrErr.Err, w.Source)}
	case errors.Is(err, syscall.ECONNREFUSED):
		return Failure{Kind: session.KindUnreachable, Msg: fmt.Sprintf("connection refused by %s; is the server running and listening there?", host)}
	case errors.As(err, &recErr), errors.Is(err, http.ErrSchemeMismatch):
		return Failure{Kind: session.KindTLS, Msg: fmt.Sprintf("TLS handshake with %s failed: the server does not speak TLS; use an http:// url if it is a plain HTTP server", host)}
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &certErr), errors.As(err, &verifyErr), errors.As(err, &alert):
		return Failure{Kind: session.KindTLS, Msg: fmt.Sprintf("TLS handshake with %s failed (%s); check the server's certificate (a self-signed or expired certificate is refused) and the url's host name", host, tlsReason(err))}
	case p.SSEEndpoint && kind == config.TransportStreamableHTTP:
		return Failure{Kind: session.KindBadResponse, Msg: "the server speaks the legacy SSE transport, not streamable HTTP; set \"transport\": \"sse\" (or remove \"transport\" to detect it)"}
	case errors.As(err, &notMCP):
		return Failure{Kind: session.KindBadResponse, Msg: notMCP.Describe(p.Status)}
	case errors.As(err, &redirect) && redirect.Body:
		return Failure{Kind: session.KindBadResponse, Msg: redirect.Error() + "; if the server has moved to that address, set its url in " + w.Source}
	case errors.As(err, &redirect):
		return Failure{Kind: session.KindBadResponse, Msg: redirect.Error() + "; the server should redirect to an https url (report it to its operator)"}
	case errors.As(err, &endpoint):
		return Failure{Kind: session.KindBadResponse, Msg: endpoint.Error()}
	case errors.As(err, &foreign):
		return Failure{Kind: session.KindBadResponse, MaybeRan: true, Msg: foreign.Error()}
	}
	switch st := p.Status; {
	case NeedsLogin(p, err):
		msg := fmt.Sprintf("the server requires an OAuth login (HTTP 401 Unauthorized); run %s", w.LoginCmd)
		if w.HasHeaders {
			msg += fmt.Sprintf(" (or check the credentials in \"headers\" of %s)", w.Source)
		}
		return Failure{Kind: session.KindAuth, Msg: msg, NeedsLogin: true}
	case st == http.StatusForbidden && p.InsufficientScope && w.OAuth:
		return Failure{Kind: session.KindAuth, NeedsLogin: true, StepUp: p.ChallengedScopes,
			Msg: fmt.Sprintf("the server needs permissions the OAuth login did not grant (HTTP 403 insufficient_scope%s); run %s to authorize them", scopeNote(p.ChallengedScopes), w.LoginCmd)}
	case st == http.StatusUnauthorized || st == http.StatusForbidden || errors.Is(err, transport.ErrAuthorizationRequired):
		if st == 0 {
			st = http.StatusUnauthorized
		}
		return Failure{Kind: session.KindAuth, Msg: fmt.Sprintf("the server refused access (HTTP %d %s). %s", st, http.StatusText(st), w.AuthHint)}
	case st == http.StatusNotFound && !p.WithSession:
		return Failure{Kind: session.KindBadResponse, Msg: "nothing found at that url (HTTP 404 Not Found); check the url's path (streamable HTTP endpoints usually end in /mcp, SSE ones in /sse)"}
	case st == http.StatusNotFound:
		return Failure{Kind: session.KindBadResponse, Msg: "the server no longer knows our session (HTTP 404) and a new one did not help"}
	case st >= 500:
		return Failure{Kind: session.KindBadResponse, MaybeRan: true, Msg: fmt.Sprintf("the server failed with HTTP %d %s; it may be down or overloaded: try again later, or check the server's logs", st, http.StatusText(st))}
	case st >= 200 && st < 300 && IsHTML(p.ContentType):
		return Failure{Kind: session.KindBadResponse, Msg: fmt.Sprintf("the url answered with an HTML page (HTTP %d), not MCP; it may point at a website, a login page or a proxy instead of the MCP endpoint", st)}
	case st >= 200 && st < 300 && p.ContentType != "" && p.ContentType != "application/json" && p.ContentType != "text/event-stream" && p.Method == http.MethodPost:
		return Failure{Kind: session.KindBadResponse, Msg: fmt.Sprintf("the url answered with content type %q (HTTP %d), not MCP (application/json or text/event-stream)", p.ContentType, st)}
	case st == http.StatusMethodNotAllowed && kind == config.TransportStreamableHTTP:
		return Failure{Kind: session.KindBadResponse, Msg: "the server refused the streamable HTTP POST (HTTP 405 Method Not Allowed); if it is a legacy SSE server, set \"transport\": \"sse\""}
	case (st == http.StatusMethodNotAllowed || st == http.StatusBadRequest) && kind == config.TransportSSE && p.Method == http.MethodGet:
		return Failure{Kind: session.KindBadResponse, Msg: fmt.Sprintf("the server refused the SSE stream (HTTP %d %s); if it is a streamable HTTP server, set \"transport\": \"streamable-http\"", st, http.StatusText(st))}
	case st >= 400:
		return Failure{Kind: session.KindBadResponse, Msg: fmt.Sprintf("the server rejected the request (HTTP %d %s)", st, http.StatusText(st))}
	}
	switch {
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return Failure{Kind: session.KindUnreachable, MaybeRan: true, Msg: fmt.Sprintf("the connection to %s was closed before an answer came", host)}
	case errors.As(err, &idleClosed):
		return Failure{Kind: session.KindUnreachable, Msg: fmt.Sprintf("the connection to %s was closed by the server", host)}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return Failure{Kind: session.KindUnreachable, Msg: fmt.Sprintf("cannot connect to %s: %v", host, opErr.Err)}
	}
	return Failure{Kind: session.KindCall, MaybeRan: true, Msg: err.Error()}
}

func tlsReason(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownCA):
		return "certificate signed by an unknown authority"
	case errors.As(err, &hostErr):
		return "certificate is not valid for this host name"
	case errors.As(err, &certErr):
		return "certificate is invalid or expired"
	}
	var alert tls.AlertError
	if errors.As(err, &alert) {
		return "the server sent TLS alert: " + alert.Error()
	}
	return "certificate verification failed"
}

// HostPort is the url's host with its port (the scheme's default when none is given),
// for messages.
func HostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the server"
	}
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}

// scopeNote names the scopes a challenge asked for, for a message ("" for none): they come
// from the server, so they are made printable and bounded.
func scopeNote(scopes []string) string {
	if len(scopes) == 0 {
		return ""
	}
	return ", scope " + textcut.Truncate(safetext.Sanitize(strings.Join(scopes, " ")), 200)
}
