package config

import (
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// TestSyntaxReason: the place and kind of a syntax error come from the bytes, and no
// word of the file is quoted (an unquoted token may be a secret).
func TestSyntaxReason(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"mcpServers": {"g": {"command": x}}}`, "line 1, column 34: an unexpected bare word"},
		{"{\n  \"env\": {\"TOKEN\": sk-live-42}\n}", "line 2, column 20: an unexpected bare word"},
		{`{"a": "b" "c": 1}`, `line 1, column 11: an unexpected string`},
		{`{"a": /}`, `line 1, column 7: an unexpected '/'`},
		{`{"a": [1 2]}`, "line 1, column 10: an unexpected bare word or number"},
		{`{"a": 1} trailing`, "line 1, column 10: an unexpected bare word"},
		{`{"a": 1,, "b": 2}`, `line 1, column 9: an unexpected ','`},
		{"{\n // é comment\n \"é\": tru }", "line 3, column 7: an unexpected bare word"},
		{`{"a": {"b": 1}`, "line 1, column 15: the file ends before its last value is closed"},
		{"{\"a\":\n \"unterminated", "line 2, column 15: the file ends before its last value is closed"},
	}
	for _, tc := range cases {
		_, err := hujson.Parse([]byte(tc.in))
		if err == nil {
			t.Fatalf("%q parsed", tc.in)
		}
		got := syntaxReason([]byte(tc.in), err)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want it to start with %q", tc.in, got, tc.want)
		}
		for _, secret := range []string{"sk-live-42", "tru", "trailing", "unterminated"} {
			if strings.Contains(tc.in, secret) && strings.Contains(got, secret) {
				t.Errorf("%q: the reason %q quotes the file", tc.in, got)
			}
		}
	}
}
