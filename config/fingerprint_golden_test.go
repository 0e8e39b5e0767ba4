package config

import "testing"

// TestFingerprintGolden pins the fingerprint encoding: a change to it silently turns
// every cached tool list stale, so it must be deliberate (bump fingerprintVersion).
func TestFingerprintGolden(t *testing.T) {
	s := &Server{Transport: "stdio", Raw: Raw{Command: "x", Args: []string{"a"}, URL: "u", Cwd: "c",
		Env: map[string]string{"B": "2", "A": "1", "C": "${X}"}, Headers: map[string]string{"z": "1", "y": "2"}}}
	if got, want := s.Fingerprint(), "9766c5e2378875515d81378643cffa22f6356059898038ed42c18fd511b1b1be"; got != want {
		t.Fatalf("Fingerprint = %s, want %s", got, want)
	}
}
