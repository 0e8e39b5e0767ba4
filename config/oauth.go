package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// OAuth grant types a server entry can choose ("oauth.grantType").
const (
	// GrantAuthorizationCode is the default: a person logs in in a browser.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials is the OAuth client-credentials extension, for
	// machine-to-machine servers: the client authenticates itself, no browser.
	GrantClientCredentials = "client_credentials"
)

// Token endpoint authentication methods ("oauth.tokenEndpointAuthMethod").
const (
	AuthMethodBasic      = "client_secret_basic"
	AuthMethodPost       = "client_secret_post"
	AuthMethodNone       = "none"
	AuthMethodPrivateKey = "private_key_jwt"
)

// OAuth is a server entry's "oauth" object: how the bridge identifies itself to the
// server's authorization server. Every field is optional; without any, the bridge uses a
// client ID metadata document where the authorization server accepts one, else
// registers a client dynamically.
type OAuth struct {
	// ClientID is a client registered beforehand with the authorization server
	// ("clientId", expanded).
	ClientID string
	// ClientSecret is that client's secret ("clientSecret", expanded from a ${VAR}).
	// It is never printed: messages name the field or the variable.
	ClientSecret string
	// TokenEndpointAuthMethod is how the client authenticates at the token endpoint
	// ("": chosen from the secret or key and the authorization server's metadata).
	TokenEndpointAuthMethod string
	// ClientMetadataURL is the client ID metadata document's https URL ("clientMetadataUrl",
	// expanded). ClientMetadataURLSet says the entry sets it: "" then turns client ID
	// metadata documents off; unset means the bridge's default document.
	ClientMetadataURL    string
	ClientMetadataURLSet bool
	// GrantType is GrantAuthorizationCode or GrantClientCredentials.
	GrantType string
	// PrivateKey is a PEM private key ("privateKey", expanded from a ${VAR}) and
	// PrivateKeyFile an absolute path to one ("privateKeyFile", a relative path is the
	// config file's directory's), for private_key_jwt. Never printed.
	PrivateKey     string
	PrivateKeyFile string
	// SigningAlgorithm is the JWS algorithm of private_key_jwt assertions
	// ("signingAlgorithm"; "": chosen from the key).
	SigningAlgorithm string
}

// ClientCredentials says whether the entry uses the client-credentials grant.
func (o *OAuth) ClientCredentials() bool { return o != nil && o.GrantType == GrantClientCredentials }

// oauthFields are the fields of "oauth" the bridge reads.
var oauthFields = []string{"clientId", "clientSecret", "tokenEndpointAuthMethod", "clientMetadataUrl", "grantType",
	"privateKey", "privateKeyFile", "signingAlgorithm"}

// OAuthField reports whether the bridge reads the field of a server entry's "oauth"
// object; otherwise what says what the bridge does instead when another client defines
// it ("" for a field nobody defines).
func OAuthField(name string) (read bool, what string) {
	return slices.Contains(oauthFields, name), oauthIgnored[name]
}

// oauthIgnored are fields other clients put in "oauth" that the bridge does not need.
var oauthIgnored = map[string]string{
	"enabled":          "not needed: the bridge uses OAuth whenever the server asks for it",
	"callbackPort":     "not used: the bridge's login listens on a free loopback port of its own",
	"redirectUri":      "not used: the bridge's login listens on a free loopback port of its own",
	"scopes":           "not used: the bridge requests the scopes the server names (its 401 answer or its metadata)",
	"authorizationUrl": "not used: the bridge finds the endpoints in the server's OAuth metadata",
	"tokenUrl":         "not used: the bridge finds the endpoints in the server's OAuth metadata",
}

// parseOAuth keeps the entry's "oauth" object for finishOAuth (which knows the
// transport), its string fields as written in Raw.OAuth.
func (d *draft) parseOAuth(v json.RawMessage) {
	var elems map[string]json.RawMessage
	if json.Unmarshal(v, &elems) != nil {
		d.fail("oauth", "must be an object (clientId, clientSecret, tokenEndpointAuthMethod, clientMetadataUrl, grantType, privateKey, privateKeyFile, signingAlgorithm)")
		return
	}
	d.oauth = elems
	raw := map[string]string{}
	for k, e := range elems {
		var s string
		if slices.Contains(oauthFields, k) && json.Unmarshal(e, &s) == nil {
			raw[k] = s
		}
	}
	d.srv.Raw.OAuth = raw
}

// finishOAuth expands and checks Raw.OAuth into Server.OAuth.
func (d *draft) finishOAuth(v *vars) {
	r := d.srv.Raw.OAuth
	if d.oauth == nil {
		return
	}
	if d.srv.Transport == TransportStdio {
		d.warn("oauth", "not used: OAuth is for servers reached over HTTP (\"url\"), and this one runs a command")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(d.oauth)) {
		field := "oauth." + k
		var s string
		switch {
		case slices.Contains(oauthFields, k):
			if json.Unmarshal(d.oauth[k], &s) != nil && !isNull(d.oauth[k]) {
				d.fail(field, "must be a string")
			}
		case oauthIgnored[k] != "":
			d.warn(field, oauthIgnored[k])
		default:
			msg := "unknown field, ignored"
			if near, ok := textdist.Closest(k, oauthFields); ok {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			d.warn(field, msg)
		}
	}
	o := &OAuth{GrantType: GrantAuthorizationCode}
	get := func(k string) string {
		raw, ok := r[k]
		if !ok {
			return ""
		}
		val, _ := d.expandField("oauth."+k, raw, v)
		return val
	}
	o.ClientID = get("clientId")
	o.ClientSecret = get("clientSecret")
	o.PrivateKey = get("privateKey")
	o.SigningAlgorithm = r["signingAlgorithm"]
	for _, k := range []string{"clientSecret", "privateKey"} {
		if raw, ok := r[k]; ok && raw != "" && len(Refs(raw)) == 0 {
			d.warn("oauth."+k, "is written in the file itself; put it in an environment variable and write \"${VAR}\" here, so the file can be shared and kept in version control")
		}
	}
	if p := get("privateKeyFile"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(d.srv.Source), p)
		}
		o.PrivateKeyFile = filepath.Clean(p)
	}
	if _, ok := r["clientMetadataUrl"]; ok {
		o.ClientMetadataURLSet = true
		o.ClientMetadataURL = get("clientMetadataUrl")
		if o.ClientMetadataURL != "" && !ValidClientMetadataURL(o.ClientMetadataURL) {
			d.fail("oauth.clientMetadataUrl", "must be an https URL with a path (the address of the client ID metadata document), or \"\" to use none")
		}
	}
	if g, ok := r["grantType"]; ok {
		switch g {
		case GrantAuthorizationCode, GrantClientCredentials:
			o.GrantType = g
		default:
			d.fail("oauth.grantType", fmt.Sprintf("unknown grant type %s; use %q (a person logs in in a browser, the default) or %q (machine to machine, no browser)",
				quoteShort(g), GrantAuthorizationCode, GrantClientCredentials))
		}
	}
	hasKey := o.PrivateKey != "" || o.PrivateKeyFile != ""
	if m, ok := r["tokenEndpointAuthMethod"]; ok {
		switch m {
		case AuthMethodBasic, AuthMethodPost, AuthMethodNone, AuthMethodPrivateKey:
			o.TokenEndpointAuthMethod = m
		default:
			d.fail("oauth.tokenEndpointAuthMethod", fmt.Sprintf("unknown method %s; use %q, %q, %q or %q", quoteShort(m), AuthMethodBasic, AuthMethodPost, AuthMethodNone, AuthMethodPrivateKey))
		}
	} else if hasKey {
		o.TokenEndpointAuthMethod = AuthMethodPrivateKey
	}
	_, secretSet := r["clientSecret"]
	_, keySet := r["privateKey"]
	_, keyFileSet := r["privateKeyFile"]
	switch {
	case d.bad["oauth.clientId"] || d.bad["oauth.clientSecret"] || d.bad["oauth.privateKey"] || d.bad["oauth.privateKeyFile"]:
	case (secretSet || keySet || keyFileSet) && strings.TrimSpace(o.ClientID) == "":
		d.fail("oauth.clientId", "required with \"clientSecret\", \"privateKey\" or \"privateKeyFile\": set the client id the authorization server gave you")
	case o.TokenEndpointAuthMethod == AuthMethodPrivateKey && !hasKey:
		d.fail("oauth.tokenEndpointAuthMethod", "\"private_key_jwt\" needs \"privateKey\" (a ${VAR} holding a PEM key) or \"privateKeyFile\"")
	case (o.TokenEndpointAuthMethod == AuthMethodBasic || o.TokenEndpointAuthMethod == AuthMethodPost) && o.ClientSecret == "":
		d.fail("oauth.tokenEndpointAuthMethod", fmt.Sprintf("%q needs \"clientSecret\"", o.TokenEndpointAuthMethod))
	case o.ClientCredentials() && strings.TrimSpace(o.ClientID) == "":
		d.fail("oauth.grantType", "\"client_credentials\" needs \"clientId\" and \"clientSecret\" (or \"privateKey\" / \"privateKeyFile\")")
	case o.ClientCredentials() && o.ClientSecret == "" && !hasKey:
		d.fail("oauth.grantType", "\"client_credentials\" needs \"clientSecret\" (a ${VAR}), or \"privateKey\" / \"privateKeyFile\" for private_key_jwt")
	}
	if a := o.SigningAlgorithm; a != "" && !slices.Contains(SigningAlgorithms, a) {
		d.fail("oauth.signingAlgorithm", fmt.Sprintf("unknown algorithm %s; use one of %s", quoteShort(a), strings.Join(SigningAlgorithms, ", ")))
	}
	d.srv.OAuth = o
}

// SigningAlgorithms are the JWS algorithms of private_key_jwt the bridge signs with.
var SigningAlgorithms = []string{"RS256", "ES256", "ES384", "EdDSA"}

// ValidClientMetadataURL says whether u can be a client ID metadata document's URL (and so
// a client_id): https, a host, a path other than "/", no user info nor fragment.
func ValidClientMetadataURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "https" && p.Host != "" && p.Hostname() != "" && p.User == nil &&
		p.Fragment == "" && !strings.Contains(u, "#") && p.Path != "" && p.Path != "/"
}
