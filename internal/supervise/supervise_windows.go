package supervise

import (
	"io"
	"os"
)

// Arg is the argv[1] that selects supervisor mode.
const Arg = "__supervise"

// MaybeRun is a no-op on Windows: servers are started directly (see the bridge's
// Supervisor option) because there are no process groups to supervise.
func MaybeRun() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:], os.Stderr))
	}
}

// Main reports that supervision is unavailable on Windows.
func Main(args []string, stderr io.Writer) int {
	_, _ = io.WriteString(stderr, "supervise: not supported on Windows\n")
	return 2
}
