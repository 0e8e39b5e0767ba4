package redact

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

func TestMaskArgs(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects"}, []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects"}},
		{[]string{"--api-key", "abc123def456"}, []string{"--api-key", "[redacted]"}},
		{[]string{"--token=sk-abcdefgh12345678"}, []string{"--token=[redacted]"}},
		{[]string{"--header", "Authorization: Bearer xyz987654321"}, []string{"--header", "Authorization: Bearer [redacted]"}},
		{[]string{"--header", "Authorization: Bearer ${TOKEN}"}, []string{"--header", "Authorization: Bearer ${TOKEN}"}},
		{[]string{"ghp_0123456789abcdefghij"}, []string{"[redacted]"}},
		{[]string{"--token", "${GITHUB_TOKEN}"}, []string{"--token", "${GITHUB_TOKEN}"}},
		{[]string{"--port", "8080", "server-v2"}, []string{"--port", "8080", "server-v2"}},
	}
	for _, tt := range tests {
		if got := MaskArgs(tt.in); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("MaskArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactor(t *testing.T) {
	cfg := &config.Server{Name: "r", URL: "https://user:pa55word@example.test/mcp?k=query-secret-42&plain=visible-value",
		Headers: map[string]string{"Authorization": "Bearer tok-0123456789", "Accept": "application/json"},
		Raw: config.Raw{URL: "https://user:pa55word@example.test/mcp?k=${Q}&plain=visible-value",
			Headers: map[string]string{"Authorization": "Bearer ${TOK}", "Accept": "application/json"}}}
	red := New(cfg)
	in := "WWW-Authenticate: Bearer realm=x; token tok-0123456789; Bearer tok-0123456789 at https://user:pa55word@example.test/mcp?k=query-secret-42&plain=visible-value; k=query-secret-42 pw pa55word; application/json"
	got := red(in)
	for _, secret := range []string{"tok-0123456789", "query-secret-42", "pa55word"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q survives: %s", secret, got)
		}
	}
	for _, keep := range []string{"Bearer", "application/json", "https://example.test/mcp?…"} {
		if !strings.Contains(got, keep) {
			t.Errorf("%q was lost: %s", keep, got)
		}
	}
	if d := DisplayURL(cfg); d != "https://example.test/mcp?…" {
		t.Errorf("DisplayURL = %q", d)
	}
}
