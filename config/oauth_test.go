package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOAuthEntry: the "oauth" object of an HTTP entry is read (it was ignored before):
// a pre-registered client with its secret from a ${VAR}, the token endpoint method, a
// client ID metadata document URL, the client-credentials grant with a key; mistakes are
// errors or warnings naming the field, and never the secret.
func TestOAuthEntry(t *testing.T) {
	const secret = "s3cret-value"
	env := map[string]string{"MY_SECRET": secret}
	tests := []struct {
		name    string
		oauth   string
		check   func(t *testing.T, o *OAuth)
		wantErr string // substring of Err
		warning string // substring of the only warning
	}{
		{name: "pre-registered", oauth: `{"clientId": "abc", "clientSecret": "${MY_SECRET}", "tokenEndpointAuthMethod": "client_secret_post"}`,
			check: func(t *testing.T, o *OAuth) {
				if o.ClientID != "abc" || o.ClientSecret != secret || o.TokenEndpointAuthMethod != AuthMethodPost || o.ClientCredentials() || o.ClientMetadataURLSet {
					t.Errorf("%+v", o)
				}
			}},
		{name: "cimd url", oauth: `{"clientMetadataUrl": "https://example.com/client.json"}`, check: func(t *testing.T, o *OAuth) {
			if !o.ClientMetadataURLSet || o.ClientMetadataURL != "https://example.com/client.json" {
				t.Errorf("%+v", o)
			}
		}},
		{name: "cimd off", oauth: `{"clientMetadataUrl": ""}`, check: func(t *testing.T, o *OAuth) {
			if !o.ClientMetadataURLSet || o.ClientMetadataURL != "" {
				t.Errorf("%+v", o)
			}
		}},
		{name: "client credentials with key file", oauth: `{"grantType": "client_credentials", "clientId": "m2m", "privateKeyFile": "key.pem"}`,
			check: func(t *testing.T, o *OAuth) {
				if !o.ClientCredentials() || o.TokenEndpointAuthMethod != AuthMethodPrivateKey || !filepath.IsAbs(o.PrivateKeyFile) || filepath.Base(o.PrivateKeyFile) != "key.pem" {
					t.Errorf("%+v", o)
				}
			}},
		{name: "cimd not https", oauth: `{"clientMetadataUrl": "http://example.com/c.json"}`, wantErr: "oauth.clientMetadataUrl: must be an https URL"},
		{name: "unknown method", oauth: `{"clientId": "a", "tokenEndpointAuthMethod": "magic"}`, wantErr: "oauth.tokenEndpointAuthMethod: unknown method"},
		{name: "secret without id", oauth: `{"clientSecret": "${MY_SECRET}"}`, wantErr: "oauth.clientId: required"},
		{name: "missing variable", oauth: `{"clientId": "a", "clientSecret": "${NOT_SET_ANYWHERE}"}`, wantErr: "NOT_SET_ANYWHERE"},
		{name: "client credentials without secret", oauth: `{"grantType": "client_credentials", "clientId": "m2m"}`, wantErr: "oauth.grantType"},
		{name: "literal secret", oauth: `{"clientId": "a", "clientSecret": "` + secret + `"}`, warning: "oauth.clientSecret: is written in the file itself"},
		{name: "typo", oauth: `{"clientID": "a"}`, warning: `did you mean "clientId"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems := loadOne(t, `{"url": "https://mcp.example.com/mcp", "oauth": `+tt.oauth+`}`, env)
			for _, p := range problems {
				if strings.Contains(p.String(), secret) {
					t.Errorf("a problem shows the secret: %s", p)
				}
			}
			if strings.Contains(s.Err, secret) {
				t.Errorf("Err shows the secret: %s", s.Err)
			}
			if tt.wantErr != "" {
				if !strings.Contains(s.Err, tt.wantErr) {
					t.Fatalf("Err %q, want %q", s.Err, tt.wantErr)
				}
				return
			}
			if s.Err != "" {
				t.Fatalf("Err %q", s.Err)
			}
			if tt.warning != "" {
				if len(problems) != 1 || !problems[0].Warning() || !strings.Contains(problems[0].String(), tt.warning) {
					t.Fatalf("problems %v, want one warning %q", problems, tt.warning)
				}
				return
			}
			if len(problems) != 0 {
				t.Errorf("problems %v", problems)
			}
			if s.OAuth == nil {
				t.Fatal("oauth not read")
			}
			tt.check(t, s.OAuth)
		})
	}
}
