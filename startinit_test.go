package main

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// TestStartBuildsNoSearchTables checks that starting the binary does not build the
// search ranker's query tables: zot waits for hello while every package initialises, and
// only a search needs them (search.New builds them, after ready). It reads the runtime's
// own count of each package's init allocations (GODEBUG=inittrace=1), not a time.
func TestStartBuildsNoSearchTables(t *testing.T) {
	t.Parallel()
	bin := testutil.BuildBinary(t, "github.com/zot-mcp/mcp-bridge")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-bridge version: %v\n%s", err, out)
	}
	// A line reads: init github.com/zot-mcp/mcp-bridge/search @2.9 ms, 1.4 ms clock, 480688 bytes, 11763 allocs
	// The ranker is package search and the packages it was split into; their small word
	// lists (stop words, verb classes, file extensions) are map literals set up at init,
	// and the lexicon's query tables, when built at init, took over ten thousand.
	const pkg = "github.com/zot-mcp/mcp-bridge/search"
	pkgs := []string{pkg, pkg + "/token", pkg + "/words", pkg + "/query"}
	const maxAllocs = 1000
	seen, total := map[string]bool{}, 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !slices.Contains(pkgs, f[1]) || f[len(f)-1] != "allocs" {
			continue
		}
		seen[f[1]] = true
		n, err := strconv.Atoi(f[len(f)-2])
		if err != nil {
			t.Fatalf("cannot read the allocation count of %q: %v", line, err)
		}
		total += n
	}
	for _, p := range pkgs {
		if !seen[p] {
			t.Fatalf("GODEBUG=inittrace=1 printed no init line for %s:\n%s", p, out)
		}
	}
	if total > maxAllocs {
		t.Errorf("initialising %v allocates %d times (at most %d): a table only searching needs is built at start\n%s", pkgs, total, maxAllocs, out)
	}
}
