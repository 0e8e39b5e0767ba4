package remote

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Bounds of what an OAuth server can make the bridge read, keep or send. mcp-go reads
// token, registration, metadata and error answers whole, so they are read here first,
// within maxAuthBody; a token is kept only when it fits in a header and in the credential
// file the bridge reads back (maxCredBytes); a login's scopes and authorization URL are
// bounded before a browser is asked to open it.
const (
	// maxAuthBody bounds one answer of an OAuth endpoint (metadata, registration, token,
	// or an error).
	maxAuthBody = 1 << 20
	// maxTokenBytes bounds an access or refresh token: it goes in a header on every
	// request, and servers refuse headers far smaller than this.
	maxTokenBytes = 64 << 10
	// maxScopeBytes bounds the scopes a 401 asks for (they go in the registration and in
	// the authorization URL).
	maxScopeBytes = 4 << 10
	// maxAuthURLBytes bounds the authorization URL handed to the browser (a command line
	// argument; browsers and servers refuse much longer URLs).
	maxAuthURLBytes = 16 << 10
)

// AuthTooLargeError is an OAuth answer over maxAuthBody; nothing of it was used.
type AuthTooLargeError struct {
	Host string // the endpoint's host:port
}

func (e *AuthTooLargeError) Error() string {
	return fmt.Sprintf("the OAuth answer from %s is larger than %d MiB, the most the bridge reads of one, and was refused; the server's OAuth endpoint is misbehaving: report it to the server's operator",
		e.Host, maxAuthBody>>20)
}

// readWhole reads resp's body within maxAuthBody and hands it on in memory; an answer
// over the bound is closed unread past it and fails the request with *AuthTooLargeError.
func readWhole(req *http.Request, resp *http.Response) (*http.Response, error) {
	if resp.ContentLength > maxAuthBody {
		_ = resp.Body.Close()
		return nil, &AuthTooLargeError{Host: req.URL.Host}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthBody+1))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > maxAuthBody {
		return nil, &AuthTooLargeError{Host: req.URL.Host}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// checkTokenSize says why a token the authorization server sent cannot be kept (nil: it
// can).
func checkTokenSize(t *transport.Token) error {
	for _, f := range []struct{ name, value string }{{"access_token", t.AccessToken}, {"refresh_token", t.RefreshToken}} {
		if len(f.value) > maxTokenBytes {
			return fmt.Errorf("the authorization server sent a token (%s) of %d KiB, over the %d KiB the bridge keeps, so it was not saved; report it to the server's operator",
				f.name, (len(f.value)+1023)>>10, maxTokenBytes>>10)
		}
	}
	return nil
}

// checkScopes says why the scopes a 401 asks for cannot be requested (nil: they can).
func checkScopes(scopes []string) error {
	n := len(scopes) // the spaces between them, and one more
	for _, s := range scopes {
		n += len(s)
	}
	if n > maxScopeBytes {
		return fmt.Errorf("the server's 401 answer asks for %d KiB of scopes (the scope of its WWW-Authenticate header), over the %d KiB the bridge requests; the server's OAuth setup is broken: report it to the server's operator",
			(n+1023)>>10, maxScopeBytes>>10)
	}
	return nil
}

// checkAuthURL says why an authorization URL cannot be handed to the browser (nil: it
// can).
func checkAuthURL(u string) error {
	if len(u) > maxAuthURLBytes {
		return fmt.Errorf("the authorization URL would be %d KiB long, over the %d KiB the bridge opens (browsers and servers refuse such URLs); the server's OAuth metadata or client registration is broken: report it to the server's operator",
			(len(u)+1023)>>10, maxAuthURLBytes>>10)
	}
	return nil
}
