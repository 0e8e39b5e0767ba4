package remote

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
)

// The OAuth client-credentials extension (io.modelcontextprotocol/oauth-client-credentials,
// SEP-1046) for machine-to-machine servers: the entry's oauth.grantType is
// "client_credentials", and the client authenticates itself at the token endpoint with
// its secret (client_secret_basic or client_secret_post) or with a JWT signed by its
// private key (private_key_jwt, RFC 7523). No browser: `login` gets the first token, and
// an expiring token is renewed the same way (there is no refresh token). The secret and
// the key are read from the config at each use, never written to the credential file.
//
// The assertion is signed with the standard library: the bridge only ever signs one fixed
// set of claims and verifies no token, which is where a JWT library would earn its keep.

// assertionLifetime is how long a client assertion is valid.
const assertionLifetime = 5 * time.Minute

// ClientCredentials gets a token with the entry's client credentials, after discovering
// the token endpoint (no browser).
func (l *Login) ClientCredentials(ctx context.Context) (Creds, error) {
	o := l.s.cfg.OAuth
	if !o.ClientCredentials() {
		return Creds{}, l.errf("OAuth login: the server's entry does not use the client-credentials grant")
	}
	l.rt = l.s.newHeaderTransport("", nil)
	hc := l.s.oauthClient(l.rt)
	unauthorized, err := discoverResource(ctx, l.s.probeClient(l.rt), l.s.cfg)
	if err != nil {
		return Creds{}, l.errf("OAuth resource discovery failed: %s", l.Reason(err))
	}
	challenge := challengeScopes(unauthorized)
	if err := checkScopes(challenge); err != nil {
		return Creds{}, l.errf("OAuth login: %v", err)
	}
	disc, err := discover(ctx, hc, l.s.d.OAuth.SecureURL, l.s.cfg.URL, unauthorized)
	if err != nil {
		return Creds{}, l.errf("OAuth authorization server discovery failed: %s", l.Reason(err))
	}
	l.disc = disc
	md := &disc.Meta.AuthServerMetadata
	if !l.s.d.OAuth.SecureURL(md.TokenEndpoint) {
		return Creds{}, l.errf("OAuth token endpoint must use HTTPS (plain HTTP only to a loopback host)")
	}
	// No offline_access: a client-credentials token is renewed with the credentials.
	scopes := loginScopes(challenge, disc.PRMScopes, nil)
	if err := checkScopes(scopes); err != nil {
		return Creds{}, l.errf("OAuth login: %v", err)
	}
	c := &oauthCreds{ClientID: o.ClientID, AuthMethod: clientCredentialsMethod(o, md), TokenEndpoint: md.TokenEndpoint,
		Registration: regPreRegistered, ConfigSecret: true, Grant: config.GrantClientCredentials, Scopes: scopes,
		Issuer: md.Issuer, Resource: disc.Resource, ResourceMetadata: disc.PRMURL}
	tok, err := l.s.clientCredentialsToken(ctx, hc, c)
	if err != nil {
		return Creds{}, l.errf("OAuth client-credentials token request failed: %s", l.Reason(err, o.ClientSecret))
	}
	store := l.s.newTokenStore()
	c.Token = store.stamp(tok)
	return Creds{path: store.path, creds: c}, nil
}

// clientCredentialsMethod is how the client authenticates: as configured; with a key,
// private_key_jwt; else client_secret_basic unless the server lists only
// client_secret_post.
func clientCredentialsMethod(o *config.OAuth, md *transport.AuthServerMetadata) string {
	if o.TokenEndpointAuthMethod != "" {
		return o.TokenEndpointAuthMethod
	}
	if o.PrivateKey != "" || o.PrivateKeyFile != "" {
		return config.AuthMethodPrivateKey
	}
	sup := md.TokenEndpointAuthMethodsSupported
	if slices.Contains(sup, config.AuthMethodPost) && !slices.Contains(sup, config.AuthMethodBasic) {
		return config.AuthMethodPost
	}
	return config.AuthMethodBasic
}

// clientCredentialsToken asks c's token endpoint for a token with the entry's client
// credentials (grant_type=client_credentials).
func (s *Server) clientCredentialsToken(ctx context.Context, hc *http.Client, c *oauthCreds) (*transport.Token, error) {
	o := s.cfg.OAuth
	if o == nil {
		return nil, errors.New("the server's entry has no \"oauth\" client any more")
	}
	form := url.Values{"grant_type": {config.GrantClientCredentials}}
	if len(c.Scopes) > 0 {
		form.Set("scope", strings.Join(c.Scopes, " "))
	}
	if c.Resource != "" {
		form.Set("resource", c.Resource)
	}
	basic := false
	switch c.AuthMethod {
	case config.AuthMethodBasic:
		basic = true
	case config.AuthMethodPost:
		form.Set("client_id", o.ClientID)
		form.Set("client_secret", o.ClientSecret)
	case config.AuthMethodPrivateKey:
		assertion, err := clientAssertion(s.clock(), o, c.Issuer, c.TokenEndpoint)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", o.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", o.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 section 2.3.1: form-encoded before they become the user and password.
		req.SetBasicAuth(url.QueryEscape(o.ClientID), url.QueryEscape(o.ClientSecret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAuthBody+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return nil, oauthAnswerError(body, resp.StatusCode)
	}
	var tok transport.Token
	if json.Unmarshal(body, &tok) != nil || tok.AccessToken == "" {
		return nil, errors.New("the token answer has no access_token")
	}
	tok.RefreshToken = "" // never used: the credentials get the next token
	if err := checkTokenSize(&tok); err != nil {
		return nil, err
	}
	return &tok, nil
}

func (s *Server) clock() func() time.Time { return s.d.Clock.Now }

// clientAssertion is the private_key_jwt assertion (RFC 7523 section 3): issued by and
// about the client, for the authorization server (its issuer, or its token endpoint when
// the metadata names no issuer), valid for assertionLifetime, with a random jti.
func clientAssertion(now func() time.Time, o *config.OAuth, issuer, tokenEndpoint string) (string, error) {
	key, err := loadPrivateKey(o)
	if err != nil {
		return "", err
	}
	alg, err := signingAlgorithm(o.SigningAlgorithm, key)
	if err != nil {
		return "", err
	}
	aud := issuer
	if aud == "" {
		aud = tokenEndpoint
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	t := now()
	header, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": o.ClientID, "sub": o.ClientID, "aud": aud,
		"iat": t.Unix(), "exp": t.Add(assertionLifetime).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sig, err := signJWS(alg, key, []byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + enc.EncodeToString(sig), nil
}

// errBadKey is what is said of a private key that cannot be used (never its contents).
var errBadKey = errors.New("the private key of oauth.privateKey or oauth.privateKeyFile is not a PEM PKCS#8, PKCS#1 or SEC 1 private key (RSA, ECDSA P-256/P-384 or Ed25519)")

// loadPrivateKey reads the entry's private key: its PEM text or file.
func loadPrivateKey(o *config.OAuth) (crypto.Signer, error) {
	data := []byte(o.PrivateKey)
	if len(data) == 0 && o.PrivateKeyFile != "" {
		b, err := os.ReadFile(o.PrivateKeyFile)
		if err != nil {
			return nil, fmt.Errorf("reading oauth.privateKeyFile: %w", pathErrReason(err))
		}
		data = b
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errBadKey
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errBadKey
}

// signingAlgorithm is the configured algorithm, checked against the key, or the key's own.
func signingAlgorithm(want string, key crypto.Signer) (string, error) {
	var alg string
	switch k := key.(type) {
	case *rsa.PrivateKey:
		alg = "RS256"
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			alg = "ES256"
		case elliptic.P384():
			alg = "ES384"
		}
	case ed25519.PrivateKey:
		alg = "EdDSA"
	}
	if alg == "" {
		return "", errBadKey
	}
	if want != "" && want != alg {
		return "", fmt.Errorf("oauth.signingAlgorithm is %q, but the private key signs %s", want, alg)
	}
	return alg, nil
}

// signJWS signs a JWS signing input (RFC 7518 section 3): ECDSA signatures are the fixed
// size r||s, not ASN.1.
func signJWS(alg string, key crypto.Signer, input []byte) ([]byte, error) {
	switch alg {
	case "RS256":
		sum := sha256.Sum256(input)
		return key.Sign(rand.Reader, sum[:], crypto.SHA256)
	case "ES256", "ES384":
		k := key.(*ecdsa.PrivateKey)
		var digest []byte
		if alg == "ES256" {
			s := sha256.Sum256(input)
			digest = s[:]
		} else {
			s := sha512.Sum384(input)
			digest = s[:]
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return nil, err
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*size)
		r.FillBytes(out[:size])
		s.FillBytes(out[size:])
		return out, nil
	case "EdDSA":
		return key.Sign(rand.Reader, input, crypto.Hash(0))
	}
	return nil, fmt.Errorf("unsupported signing algorithm %q", alg)
}
