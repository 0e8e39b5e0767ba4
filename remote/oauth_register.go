package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// How a login identifies the bridge to the authorization server, in the order of the MCP
// authorization spec (2025-11-25 and later):
//
//  1. a client registered beforehand: the entry's oauth.clientId (and clientSecret, a
//     ${VAR}, or a private key), when the user configured one;
//  2. a client ID metadata document (CIMD): the document's https URL is the client_id,
//     when the authorization server says it accepts them
//     (client_id_metadata_document_supported) and a URL is known: the entry's
//     oauth.clientMetadataUrl, else DefaultClientMetadataURL ("" in the entry: none);
//  3. dynamic client registration (RFC 7591), as a native application (SEP-837: its
//     redirect is a loopback URL) asking for authorization_code and refresh_token, with
//     the token endpoint authentication method the authorization server offers.
//
// The bridge registers itself (mcp-go's RegisterClient sends no application_type and always
// asks for a public client) and hands the client it got to mcp-go's handler, which builds
// the authorization URL and exchanges the code.

// DefaultClientMetadataURL is the client ID metadata document the bridge uses where an
// authorization server accepts one and the server's entry names none. README
// ("OAuth") says what it holds.
const DefaultClientMetadataURL = "https://zot-mcp.github.io/mcp-bridge/oauth/client-metadata.json"

// Ways a login's client came to be (oauthCreds.Registration).
const (
	regPreRegistered = "pre-registered"
	regMetadataDoc   = "client-metadata-document"
	regDynamic       = "dynamic"
)

// loginClient is the client a login authorizes as.
type loginClient struct {
	id, secret, method string
	// how is regPreRegistered, regMetadataDoc or regDynamic.
	how string
}

// loginMetadata is what choosing the client and the scopes needs of a discovery.
type loginMetadata struct {
	md *transport.AuthServerMetadata
	// prmScopes is the protected-resource metadata's scopes_supported.
	prmScopes []string
	// cimd: the authorization server accepts client ID metadata documents.
	cimd bool
}

// loginMetadata is what d found that the client and scope choices read.
func (d *authDiscovery) loginMetadata() loginMetadata {
	return loginMetadata{md: &d.Meta.AuthServerMetadata, prmScopes: d.PRMScopes,
		cimd: d.Meta.ClientIDMetadataDocumentSupported}
}

// clientMetadataURL is the CIMD URL of the server's entry ("": none is used).
func clientMetadataURL(o *config.OAuth) string {
	if o != nil && o.ClientMetadataURLSet {
		return o.ClientMetadataURL
	}
	return DefaultClientMetadataURL
}

// ErrNoRegistration is a login whose authorization server offers no way for the bridge to
// get a client: no dynamic registration, no client ID metadata documents, and the entry
// names no client.
var ErrNoRegistration = errors.New("the authorization server offers neither dynamic client registration nor client ID metadata documents")

// chooseClient picks the login's client (see the order above), registering one when
// that is the way.
func (s *Server) chooseClient(ctx context.Context, hc *http.Client, lm loginMetadata, redirectURI string, scopes []string) (loginClient, error) {
	o := s.cfg.OAuth
	if o != nil && o.ClientID != "" {
		return loginClient{id: o.ClientID, secret: o.ClientSecret, method: preRegisteredMethod(o, lm.md), how: regPreRegistered}, nil
	}
	if u := clientMetadataURL(o); lm.cimd && u != "" {
		return loginClient{id: u, method: config.AuthMethodNone, how: regMetadataDoc}, nil
	}
	if lm.md.RegistrationEndpoint == "" {
		return loginClient{}, fmt.Errorf("%w; register a client with it and set \"oauth\": {\"clientId\": \"...\", \"clientSecret\": \"${VAR}\"} for this server in %s",
			ErrNoRegistration, s.cfg.Source)
	}
	return s.registerClient(ctx, hc, lm.md, redirectURI, scopes)
}

// preRegisteredMethod is how a configured client authenticates at the token endpoint: as
// configured; else none without a secret; else client_secret_basic (RFC 7591's default)
// unless the authorization server lists only client_secret_post.
func preRegisteredMethod(o *config.OAuth, md *transport.AuthServerMetadata) string {
	switch {
	case o.TokenEndpointAuthMethod != "":
		return o.TokenEndpointAuthMethod
	case o.ClientSecret == "":
		return config.AuthMethodNone
	}
	sup := md.TokenEndpointAuthMethodsSupported
	if slices.Contains(sup, config.AuthMethodPost) && !slices.Contains(sup, config.AuthMethodBasic) {
		return config.AuthMethodPost
	}
	return config.AuthMethodBasic
}

// registrationMethod is the token endpoint authentication method a dynamic registration
// asks for: a public client ("none") where the authorization server allows it or says
// nothing, else a secret in the way it lists first of Basic and the body.
func registrationMethod(md *transport.AuthServerMetadata) string {
	sup := md.TokenEndpointAuthMethodsSupported
	switch {
	case len(sup) == 0, slices.Contains(sup, config.AuthMethodNone):
		return config.AuthMethodNone
	case slices.Contains(sup, config.AuthMethodBasic):
		return config.AuthMethodBasic
	case slices.Contains(sup, config.AuthMethodPost):
		return config.AuthMethodPost
	}
	return config.AuthMethodNone
}

// registerClient registers the bridge dynamically (RFC 7591) at md's registration
// endpoint.
func (s *Server) registerClient(ctx context.Context, hc *http.Client, md *transport.AuthServerMetadata, redirectURI string, scopes []string) (loginClient, error) {
	method := registrationMethod(md)
	body := map[string]any{
		"client_name":   s.d.ClientName,
		"redirect_uris": []string{redirectURI},
		// SEP-837: a client whose redirect is a loopback URL is a native application.
		"application_type":           "native",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	}
	if len(scopes) > 0 {
		body["scope"] = strings.Join(scopes, " ")
	}
	data, err := json.Marshal(body)
	if err != nil {
		return loginClient{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(data))
	if err != nil {
		return loginClient{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return loginClient{}, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthBody+1))
	if err != nil {
		return loginClient{}, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return loginClient{}, oauthAnswerError(answer, resp.StatusCode)
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if json.Unmarshal(answer, &reg) != nil || reg.ClientID == "" {
		return loginClient{}, errors.New("the registration answer names no client_id")
	}
	// RFC 7591 section 3.2.1: the answer says what was registered, which may differ.
	if reg.Method != "" {
		method = reg.Method
	}
	return loginClient{id: reg.ClientID, secret: reg.ClientSecret, method: method, how: regDynamic}, nil
}

// oauthAnswerError is an OAuth endpoint's refusal: its error code (RFC 6749 5.2) when it
// sent one, else its status (the body is the server's and is not repeated).
func oauthAnswerError(body []byte, status int) error {
	var oe transport.OAuthError
	if json.Unmarshal(body, &oe) == nil && oe.ErrorCode != "" {
		oe.ErrorCode = safeCode(oe.ErrorCode)
		oe.ErrorDescription = textcut.Truncate(oe.ErrorDescription, 200)
		oe.ErrorURI = ""
		return oe
	}
	return fmt.Errorf("HTTP %d %s", status, http.StatusText(status))
}
