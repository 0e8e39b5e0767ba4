package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// launchRun is one run of ./launch: what it printed and whether it compiled.
type launchRun struct {
	stdout, stderr string
	built          bool // the binary file was replaced
}

// runLaunch runs dir/launch with args and reports whether the binary changed on disk.
func runLaunch(t *testing.T, dir string, args ...string) launchRun {
	t.Helper()
	bin := filepath.Join(dir, "mcp-bridge")
	before, _ := os.Stat(bin)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(dir, "launch"), args...)
	cmd.Dir = t.TempDir() // zot uses the extension dir; the script must not depend on it
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("launch %v: %v\nstderr:\n%s", args, err, stderr.String())
	}
	after, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("no binary after launch: %v", err)
	}
	return launchRun{stdout.String(), stderr.String(), before == nil || !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime())}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fixtureMain(out string) string {
	return "package main\n\nimport (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed data/greeting.json\nvar greeting string\n\nfunc main() { fmt.Print(\"" + out + " \" + greeting) }\n"
}

// TestLaunchRebuildsByContent drives the real ./launch over a tiny module: the launcher
// must exec the built binary while the sources' content is unchanged (whatever their
// mtimes) and rebuild, saying why, when it changed.
func TestLaunchRebuildsByContent(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("./launch is a POSIX shell script")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "launch"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "launch"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/stampfixture\n\ngo 1.26\n")
	writeFile(t, filepath.Join(dir, "main.go"), fixtureMain("v1"))
	writeFile(t, filepath.Join(dir, "data", "greeting.json"), `"hi"`)

	if r := runLaunch(t, dir, "--build"); !r.built || r.stdout != "" {
		t.Fatalf("--build: built=%v stdout=%q stderr=%s", r.built, r.stdout, r.stderr)
	}
	future := time.Now().Add(time.Hour)
	steps := []struct {
		name       string
		change     func()
		wantBuild  bool
		wantReason string // in stderr when it builds
		wantOut    string
	}{
		{"unchanged", func() {}, false, "", "v1 \"hi\""},
		{"newer mtimes, same content", func() {
			for _, f := range []string{"main.go", "go.mod", "data/greeting.json"} {
				if err := os.Chtimes(filepath.Join(dir, f), future, future); err != nil {
					t.Fatal(err)
				}
			}
		}, false, "", "v1 \"hi\""},
		{"rewritten with the same content", func() { writeFile(t, filepath.Join(dir, "main.go"), fixtureMain("v1")) }, false, "", "v1 \"hi\""},
		{"test file added (not a build input)", func() {
			writeFile(t, filepath.Join(dir, "main_test.go"), "package main\n")
		}, false, "", "v1 \"hi\""},
		{"go file changed", func() { writeFile(t, filepath.Join(dir, "main.go"), fixtureMain("v2")) },
			true, "./main.go (changed)", "v2 \"hi\""},
		{"unchanged after the rebuild", func() {}, false, "", "v2 \"hi\""},
		{"embedded file changed", func() { writeFile(t, filepath.Join(dir, "data", "greeting.json"), `"ho"`) },
			true, "./data/greeting.json (changed)", "v2 \"ho\""},
		{"go file added", func() { writeFile(t, filepath.Join(dir, "extra.go"), "package main\n") },
			true, "./extra.go (new)", "v2 \"ho\""},
		{"go file removed", func() {
			if err := os.Remove(filepath.Join(dir, "extra.go")); err != nil {
				t.Fatal(err)
			}
		}, true, "./extra.go (removed)", "v2 \"ho\""},
		{"go.mod changed", func() { writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/stampfixture\n\ngo 1.26.0\n") },
			true, "./go.mod (changed)", "v2 \"ho\""},
		{"stamp missing", func() {
			if err := os.Remove(filepath.Join(dir, "mcp-bridge.stamp")); err != nil {
				t.Fatal(err)
			}
		}, true, "mcp-bridge.stamp is missing", "v2 \"ho\""},
		{"binary missing", func() {
			if err := os.Remove(filepath.Join(dir, "mcp-bridge")); err != nil {
				t.Fatal(err)
			}
		}, true, "there is no binary", "v2 \"ho\""},
		{"unchanged at the end", func() {}, false, "", "v2 \"ho\""},
	}
	for _, s := range steps {
		s.change()
		r := runLaunch(t, dir)
		if r.stdout != s.wantOut {
			t.Errorf("%s: the launcher ran a binary that printed %q, want %q", s.name, r.stdout, s.wantOut)
		}
		if r.built != s.wantBuild {
			t.Errorf("%s: built=%v, want %v; stderr:\n%s", s.name, r.built, s.wantBuild, r.stderr)
		}
		if !s.wantBuild && r.stderr != "" {
			t.Errorf("%s: the launcher said something without building:\n%s", s.name, r.stderr)
		}
		if s.wantBuild {
			for _, want := range []string{"rebuilding before start because", s.wantReason, "./install --replace", "launch --build"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", s.name, want, r.stderr)
				}
			}
		}
	}
}

// TestLaunchStampCoversBuildInputs checks the launcher's source listing against what go
// itself says the bridge is built from, so a new package or //go:embed file cannot slip
// past the stamp (a stale binary would then start after an upgrade).
func TestLaunchStampCoversBuildInputs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("./launch is a POSIX shell script")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(root, "launch"), "--stamp").Output()
	if err != nil {
		t.Fatalf("launch --stamp: %v", err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "./") {
			t.Fatalf("listing line %q is not <crc> <size> ./<path>", line)
		}
		p := f[2]
		listed[p] = true
		if strings.HasSuffix(p, "_test.go") {
			t.Errorf("test file %s is in the stamp: editing a test would rebuild the installed bridge", p)
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`, ".")
	cmd.Dir = root
	deps, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	want := []string{"go.mod", "go.sum"}
	for _, abs := range strings.Fields(string(deps)) {
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.ToSlash(rel))
	}
	if len(want) < 10 {
		t.Fatalf("go list named only %v", want)
	}
	for _, w := range want {
		if !listed["./"+w] {
			t.Errorf("%s is a build input of the bridge but ./launch --stamp does not list it", w)
		}
	}
}
