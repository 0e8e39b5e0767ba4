package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/bridge"
)

// TestDoctorCountsInWords: doctor's lines on findings and on alwaysLoad count as people
// write: "1 finding", "1 more tool", never "finding(s)" or "1 more tools".
func TestDoctorCountsInWords(t *testing.T) {
	var b bytes.Buffer
	printFindings(&b, []string{"echo: addresses the model"})
	for _, tc := range []struct{ what, got, want string }{
		{"findings", b.String(), "1 finding in its tool descriptions"},
		{"alwaysLoad", alwaysLoadLine(bridge.AlwaysLoadUse{Tools: 1, Bytes: 100, Budget: 32 << 10, Over: []string{"big"}}), "1 more tool named in alwaysLoad does not fit"},
		{"alwaysLoad", alwaysLoadLine(bridge.AlwaysLoadUse{Tools: 2, Bytes: 100, Budget: 32 << 10, Over: []string{"a", "b"}}), "2 tools visible"},
	} {
		if !strings.Contains(tc.got, tc.want) || strings.Contains(tc.got, "(s)") {
			t.Errorf("%s: %q lacks %q", tc.what, tc.got, tc.want)
		}
	}
}
