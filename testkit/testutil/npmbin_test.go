package testutil

import (
	"path/filepath"
	"testing"
)

// recordTB records how a helper ended the test instead of ending it.
type recordTB struct {
	testing.TB
	fatal, skip bool
}

func (r *recordTB) Helper()                      {}
func (r *recordTB) Fatalf(string, ...any)        { r.fatal = true }
func (r *recordTB) Skipf(string, ...any)         { r.skip = r.skip || !r.fatal }
func (r *recordTB) Logf(format string, a ...any) {}

// TestNPMBinMissing: missing npm servers skip a plain `go test`, and fail under
// ./run-tests (MCP_BRIDGE_REQUIRE_NPM) and in CI, where a skip would hide them.
func TestNPMBinMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	for _, c := range []struct {
		name      string
		ci, req   string
		wantFatal bool
	}{
		{"plain go test", "", "", false},
		{"run-tests", "", "1", true},
		{"CI", "true", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MCP_NPM_BIN", missing)
			t.Setenv("CI", c.ci)
			t.Setenv("MCP_BRIDGE_REQUIRE_NPM", c.req)
			r := &recordTB{TB: t}
			NPMBin(r)
			if r.fatal != c.wantFatal || r.skip == c.wantFatal {
				t.Errorf("fatal %v skip %v, want fatal %v", r.fatal, r.skip, c.wantFatal)
			}
		})
	}
}
