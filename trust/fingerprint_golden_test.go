package trust

import (
	"testing"

	"github.com/zot-mcp/mcp-bridge/config"
)

// TestFingerprintGolden pins the trust fingerprint encoding: a change to it silently
// withdraws every approval the user gave.
func TestFingerprintGolden(t *testing.T) {
	s := &config.Server{Transport: "stdio", Raw: config.Raw{Command: "x", Args: []string{"a"}, URL: "u", Cwd: "c",
		Env: map[string]string{"B": "2", "A": "1", "C": "${X}"}, Headers: map[string]string{"z": "1", "y": "2"}}}
	if got, want := Fingerprint(s), "2802d62878b5d537e7a36089f6512ac13d15519d771c827871ab3743adb8c7a8"; got != want {
		t.Fatalf("Fingerprint = %s, want %s", got, want)
	}
}
