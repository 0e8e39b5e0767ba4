package remote

import (
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestAuthHintNamesVariables checks that a 401's hint names the environment variables
// the headers actually read, with config's own reading of ${...} (the other clients'
// ${env:NAME} and ${input:ID} forms included), and never a header's literal value.
func TestAuthHintNamesVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		headers map[string]string
		want    []string
		not     []string
	}{
		{map[string]string{"Authorization": "Bearer ${TOKEN}"}, []string{"Check that ${TOKEN} "}, nil},
		{map[string]string{"Authorization": "Bearer ${env:TOKEN}", "X-Key": "${input:api-key}"},
			[]string{"${TOKEN}, ${MCP_INPUT_API_KEY} (used in"}, []string{"${env}", "${input}"}},
		{map[string]string{"Authorization": "Bearer ${TOKEN:-literal-secret}"}, []string{"Check that ${TOKEN} "}, []string{"literal-secret"}},
		{map[string]string{"X-Key": "literal-secret"}, []string{`"headers" (X-Key)`}, []string{"literal-secret"}},
	}
	for _, tt := range tests {
		s := NewServer(&config.Server{Name: "web", Source: "mcp.json", Raw: config.Raw{Headers: tt.headers}},
			&Deps{Cmd: func(sub string, args ...string) string { return "/mcp " + sub + " " + strings.Join(args, " ") }})
		got := s.authHint()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("headers %v: hint %q lacks %q", tt.headers, got, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("headers %v: hint %q contains %q", tt.headers, got, n)
			}
		}
	}
}
