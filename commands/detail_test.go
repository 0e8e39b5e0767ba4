package commands

import "testing"

// TestDetailValue checks what /mcp <server> shows of an env or header value: a lone
// reference as written, otherwise "<set>" with the references it uses, never a default.
func TestDetailValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"${TOKEN}", "${TOKEN}"},
		{"${env:TOKEN}", "${env:TOKEN}"},
		{"${input:api-key}", "${input:api-key}"},
		{"literal", "<set>"},
		{"${TOKEN:-s3cret}", "<set, uses ${TOKEN}>"},
		{"Bearer ${TOKEN} ${input:k}", "<set, uses ${TOKEN} ${input:k}>"},
		{"${1X}", "<set>"},
	}
	for _, tt := range tests {
		if got := DetailValue(tt.in); got != tt.want {
			t.Errorf("DetailValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
