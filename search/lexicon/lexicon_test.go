package lexicon

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTablesNotBuiltAtLoad: loading the package builds no table (each is built by the
// function that returns it), so a bridge neither spends the time before its hello nor
// keeps the tables on its heap for good. The package's load is read in a child process
// from the runtime's init trace.
func TestTablesNotBuiltAtLoad(t *testing.T) {
	if os.Getenv("LEXICON_TEST_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTablesNotBuiltAtLoad$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "LEXICON_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init github\.com/zot-mcp/mcp-bridge/search/lexicon @.*$`).Find(out)
	m := regexp.MustCompile(`, (\d+) bytes,`).FindSubmatch(line)
	if m == nil {
		t.Fatalf("no init trace of the package in the child's output:\n%s", out)
	}
	const limit = 16 << 10
	if n, _ := strconv.Atoi(string(m[1])); n > limit {
		t.Errorf("loading the package allocates %d bytes, want at most %d: %s", n, limit, strings.TrimSpace(string(line)))
	}
}

// TestTablesAreTheCallers: each call returns a map of its own, so a caller that
// changes one changes nothing another reads.
func TestTablesAreTheCallers(t *testing.T) {
	t.Parallel()
	for name, get := range map[string]func() map[string][]string{"Intents": Intents, "Fields": Fields, "Bilingual": Bilingual} {
		a, b := get(), get()
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d and %d entries", name, len(a), len(b))
		}
		for k := range a {
			delete(a, k)
		}
		if c := get(); len(b) == 0 || len(c) != len(b) {
			t.Fatalf("%s: emptying one map left %d and %d entries in the others", name, len(b), len(c))
		}
	}
}
