package testutil_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// raiseChildEnv makes TestRaiseParallel's child run report instead of test.
const raiseChildEnv = "TESTUTIL_RAISE_PARALLEL_CHILD"

// TestRaiseParallel runs this test binary again, with and without -test.parallel on its
// command line: RaiseParallel lifts the default to perCPU×GOMAXPROCS and leaves a value
// the user gave alone.
func TestRaiseParallel(t *testing.T) {
	if os.Getenv(raiseChildEnv) == "1" {
		testutil.RaiseParallel(3)
		fmt.Printf("parallel=%s procs=%d\n", flag.Lookup("test.parallel").Value, runtime.GOMAXPROCS(0))
		return
	}
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want func(procs int) int
	}{
		{"default raised", nil, func(procs int) int { return 3 * procs }},
		{"given value kept", []string{"-test.parallel=1"}, func(int) int { return 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-test.run=^TestRaiseParallel$", "-test.v"}, tc.args...)
			cmd := exec.Command(os.Args[0], args...)
			// No race-runtime pause at the child's exit: it has nothing left to report.
			cmd.Env = append(os.Environ(), raiseChildEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child run: %v\n%s", err, out)
			}
			var parallel, procs int
			i := strings.Index(string(out), "parallel=")
			if i < 0 {
				t.Fatalf("child printed no parallel= line:\n%s", out)
			}
			if _, err := fmt.Sscanf(string(out[i:]), "parallel=%d procs=%d", &parallel, &procs); err != nil {
				t.Fatalf("child output: %v\n%s", err, out)
			}
			if want := tc.want(procs); parallel != want {
				t.Fatalf("-test.parallel is %d with GOMAXPROCS %d, want %d", parallel, procs, want)
			}
		})
	}
}
