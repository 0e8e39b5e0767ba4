package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// repoURL is the clone URL the README's install block uses; the install test clones the
// repository under test instead.
const repoURL = "https://github.com/zot-mcp/mcp-bridge.git"

// readmeInstallBlock returns the shell lines of README.md's install block: the one fenced
// code block between the install-block markers.
func readmeInstallBlock(readme string) (string, error) {
	_, rest, ok := strings.Cut(readme, "<!-- install-block:")
	if !ok {
		return "", errors.New("README.md has no <!-- install-block: ... --> marker")
	}
	block, _, ok := strings.Cut(rest, "<!-- /install-block -->")
	if !ok {
		return "", errors.New("README.md has no <!-- /install-block --> marker")
	}
	m := regexp.MustCompile("(?s)\n```sh\n(.*?)```\\s*$").FindStringSubmatch(block)
	if m == nil {
		return "", errors.New("the install block is not exactly one ```sh fenced block")
	}
	return m[1], nil
}

// extNameRe finds the name the README uses with zot's extension commands.
var extNameRe = regexp.MustCompile("zot ext (?:logs|remove|rm|disable|enable) ([A-Za-z0-9._-]+)")

// readmeExtName returns the one name README.md uses with `zot ext` commands.
func readmeExtName(readme string) (string, error) {
	name := ""
	for _, m := range extNameRe.FindAllStringSubmatch(readme, -1) {
		if name != "" && m[1] != name {
			return "", errors.New("README.md uses two names with zot ext: " + name + " and " + m[1])
		}
		name = m[1]
	}
	if name == "" {
		return "", errors.New("README.md never names the extension in a zot ext command")
	}
	return name, nil
}

type manifest struct {
	Name    string `json:"name"`
	Exec    string `json:"exec"`
	Enabled *bool  `json:"enabled"`
}

func readManifest(t testing.TB, dir string) manifest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "extension.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("extension.json: %v", err)
	}
	return m
}

func readREADME(t testing.TB, root string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestOneExtensionName: zot v0.1.62 finds `zot ext logs` by the manifest name and
// disable/enable/remove by the folder ./install creates, so the manifest, the installer,
// hello and the README must all use one name. Also checks the README install block is
// where the real-zot test looks for it, so CI notices a broken block without zot.
func TestOneExtensionName(t *testing.T) {
	t.Parallel()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	m := readManifest(t, root)
	if m.Name != bridge.ExtensionName {
		t.Errorf("extension.json name %q, hello name %q", m.Name, bridge.ExtensionName)
	}
	if m.Exec != "./launch" {
		t.Errorf("extension.json exec %q, want ./launch (the stamp check)", m.Exec)
	}
	script, err := os.ReadFile(filepath.Join(root, "install"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(script, []byte("\nname="+m.Name+"\n")) {
		t.Errorf("./install does not stage the folder as %q", m.Name)
	}
	readme := readREADME(t, root)
	name, err := readmeExtName(readme)
	if err != nil {
		t.Fatal(err)
	}
	if name != m.Name {
		t.Errorf("README.md says zot ext ... %s, the manifest name is %s", name, m.Name)
	}
	block, err := readmeInstallBlock(readme)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(block, repoURL) != 1 {
		t.Errorf("the install block should clone %s once:\n%s", repoURL, block)
	}
}

// readmeInstall is an extension installed by README.md's install block with the real zot.
type readmeInstall struct {
	zot     string   // the zot binary used
	name    string   // the name README.md uses with zot ext commands
	zotHome string   // the fresh ZOT_HOME
	env     []string // zot's environment: this process's plus ZOT_HOME
	extDir  string   // $ZOT_HOME/extensions/<name>
	m       manifest // its extension.json
}

// installFromReadme clones this repository into an empty folder and runs README.md's
// install block there, exactly as written except that it clones this repository's
// committed state instead of GitHub's, with a fresh ZOT_HOME. It skips without zot on PATH.
func installFromReadme(tb testing.TB) readmeInstall {
	tb.Helper()
	zot, err := exec.LookPath("zot")
	if err != nil {
		tb.Skip("no zot on PATH: this needs the real zot binary")
	}
	if runtime.GOOS == "windows" {
		tb.Skip("the install block is a POSIX shell block")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	readme := readREADME(tb, root)
	block, err := readmeInstallBlock(readme)
	if err != nil {
		tb.Fatal(err)
	}
	name, err := readmeExtName(readme)
	if err != nil {
		tb.Fatal(err)
	}
	in := readmeInstall{zot: zot, name: name, zotHome: filepath.Join(tb.TempDir(), "zot-home")}
	in.env = append(os.Environ(), "ZOT_HOME="+in.zotHome)
	sh := exec.Command("sh", "-eu", "-c", strings.Replace(block, repoURL, root, 1))
	sh.Dir, sh.Env = tb.TempDir(), in.env
	if out, err := sh.CombinedOutput(); err != nil {
		tb.Fatalf("the README install block failed with %s: %v\n%s", zot, err, out)
	}
	in.extDir = filepath.Join(in.zotHome, "extensions", name)
	in.m = readManifest(tb, in.extDir)
	return in
}

// start starts the installed extension as zot does: exec from the manifest, relative to
// the extension folder, which is also the working directory; zot's environment unchanged;
// stderr appended to $ZOT_HOME/logs/ext-<manifest name>.log, the file `zot ext logs` reads.
// It returns once hello arrived, with the time from spawn to hello.
func (in readmeInstall) start(ctx context.Context, tb testing.TB) (*exttest.Host, exttest.Hello, time.Duration) {
	tb.Helper()
	logPath := filepath.Join(in.zotHome, "logs", "ext-"+in.m.Name+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		tb.Fatal(err)
	}
	logFile, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = logFile.Close() })
	cmd := exec.Command(filepath.Join(in.extDir, in.m.Exec))
	cmd.Dir, cmd.Env, cmd.Stderr = in.extDir, in.env, logFile
	began := time.Now()
	h := exttest.StartProcess(tb, cmd)
	hello := h.ExpectHello(ctx)
	return h, hello, time.Since(began)
}

// TestReadmeInstall installs as a new user does, with the real zot on PATH (README.md's
// install block in an empty folder, fresh ZOT_HOME), starts the installed extension the way
// zot does, and checks that the first start execs the built bridge (no compiling) and that
// every `zot ext` command works with the README's name. BenchmarkFirstStart measures it.
func TestReadmeInstall(t *testing.T) {
	t.Parallel()
	in := installFromReadme(t)
	zot, name, env, extDir, m := in.zot, in.name, in.env, in.extDir, in.m
	if m.Name != name {
		t.Fatalf("installed manifest name %q, folder and README name %q", m.Name, name)
	}
	bin := filepath.Join(extDir, "mcp-bridge")
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("the install left no built binary: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, hello, took := in.start(ctx, t)
	t.Logf("spawn → hello: %.1f ms (first start after the README install, %s)", float64(took.Microseconds())/1000, zot)
	if hello.Name != m.Name {
		t.Errorf("hello name %q, manifest name %q", hello.Name, m.Name)
	}
	h.Handshake(ctx, exttest.Ack{Cwd: t.TempDir(), ExtensionDir: extDir, DataDir: in.zotHome})
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Wait(ctx); err != nil {
		t.Errorf("the extension did not exit cleanly after shutdown: %v", err)
	}

	after, err := os.Stat(bin)
	if err != nil || !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Errorf("the binary was rebuilt on the first start (stat %v)", err)
	}
	logs := runOK(t, env, zot, "ext", "logs", name)
	if strings.Contains(logs, "rebuilding") || strings.Contains(logs, "go build") {
		t.Errorf("the first start compiled:\n%s", logs)
	}

	if list := runOK(t, env, zot, "ext", "list"); !strings.Contains(list, name) || !strings.Contains(list, extDir) {
		t.Errorf("zot ext list does not show %s in %s:\n%s", name, extDir, list)
	}
	runOK(t, env, zot, "ext", "disable", name)
	if e := readManifest(t, extDir).Enabled; e == nil || *e {
		t.Errorf("zot ext disable %s left enabled=%v", name, e)
	}
	runOK(t, env, zot, "ext", "enable", name)
	if e := readManifest(t, extDir).Enabled; e == nil || !*e {
		t.Errorf("zot ext enable %s left enabled=%v", name, e)
	}
	runOK(t, env, zot, "ext", "remove", name, "--yes")
	if _, err := os.Stat(extDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("zot ext remove %s left %s (stat: %v)", name, extDir, err)
	}
}

// runOK runs a command and fails the test unless it succeeds; it returns the combined output.
func runOK(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestInstallScriptRefuses: ./install says what is missing, or how it is used, before it
// builds or copies anything (runs without zot: the tools are hidden from PATH).
func TestInstallScriptRefuses(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("./install is a POSIX shell script")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// bin holds only the named tools, so PATH decides what ./install finds.
	pathWith := func(tools ...string) string {
		bin := t.TempDir()
		for _, tool := range tools {
			real, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("%s not found: %v", tool, err)
			}
			if err := os.Symlink(real, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
		return bin
	}
	for _, c := range []struct {
		name     string
		args     []string
		path     string
		wantCode int
		want     string
	}{
		{"unknown option", []string{"--force"}, pathWith("git", "go"), 2, "usage: ./install [--replace] [--no-link]"},
		{"two arguments", []string{"--replace", "x"}, pathWith("git", "go"), 2, "install: unknown option x"},
		{"no go", nil, pathWith("git"), 1, "go not found on PATH; mcp-bridge needs Go 1.26.8 or newer"},
		{"no zot", nil, pathWith("git", "go"), 1, "zot not found on PATH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(filepath.Join(root, "install"), c.args...)
			cmd.Dir, cmd.Stderr = t.TempDir(), &stderr
			cmd.Env = append(os.Environ(), "PATH="+c.path)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.wantCode {
				t.Fatalf("exit %v, want code %d; stderr:\n%s", err, c.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr.String())
			}
			if strings.Contains(stderr.String(), "building") {
				t.Errorf("a refused install started building:\n%s", stderr.String())
			}
		})
	}
}

// TestInstallLinksCLI (on a copy of the working tree, untracked files included): ./install puts the CLI where the bridge's messages say it is
// (`mcp-bridge …`): a link in ~/.local/bin when that folder is on PATH, else a line saying
// how to link it; --no-link skips the link, and a file of the user's is never replaced. zot
// is a stand-in script, so this runs without the real zot.
func TestInstallLinksCLI(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("./install is a POSIX shell script")
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	copyTracked := exec.Command("sh", "-ec", `mkdir -p "$1" && git ls-files -co --exclude-standard | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T - | (cd "$1" && tar -xf -) && cd "$1" && git init -q . && git add -A`, "sh", clone)
	copyTracked.Dir = root
	if out, err := copyTracked.CombinedOutput(); err != nil {
		t.Fatalf("copying the clone: %v\n%s", err, out)
	}
	// A new HOME would give go a cold build cache and module cache: keep this machine's.
	var goEnv []string
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		goEnv = append(goEnv, v+"="+strings.TrimSpace(string(out)))
	}
	tools := t.TempDir()
	// The stand-in zot accepts what ./install asks of it and nothing else.
	fakeZot := "#!/bin/sh\ncase \"$1 $2\" in\n\"ext install\"|\"ext remove\") exit 0 ;;\nesac\nexit 3\n"
	if err := os.WriteFile(filepath.Join(tools, "zot"), []byte(fakeZot), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(clone, "mcp-bridge")
	for _, c := range []struct {
		name     string
		args     []string
		onPath   bool   // ~/.local/bin is on PATH
		existing string // a regular file of the user's already at ~/.local/bin/mcp-bridge
		wantLink bool
		want     string
	}{
		{"on PATH", nil, true, "", true, "linked "},
		{"not on PATH", nil, false, "", false, "link it into a folder on your PATH: ln -s"},
		{"no-link", []string{"--no-link"}, true, "", false, ""},
		{"a file of the user's", nil, true, "#!/bin/sh\n", false, "left "},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			localBin := filepath.Join(home, ".local", "bin")
			// The stand-in comes first, so a real zot further on PATH is never asked.
			path := tools + ":" + os.Getenv("PATH")
			if c.onPath {
				path = localBin + ":" + path
			}
			if c.existing != "" {
				if err := os.MkdirAll(localBin, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(localBin, "mcp-bridge"), []byte(c.existing), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var stderr bytes.Buffer
			cmd := exec.Command(filepath.Join(clone, "install"), c.args...)
			cmd.Dir, cmd.Stderr = clone, &stderr
			cmd.Env = append(append(os.Environ(), goEnv...), "PATH="+path, "HOME="+home)
			if err := cmd.Run(); err != nil {
				t.Fatalf("./install %v: %v\n%s", c.args, err, stderr.String())
			}
			if c.want != "" && !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr.String())
			}
			if c.want == "" && strings.Contains(stderr.String(), "link") {
				t.Errorf("--no-link still spoke of a link:\n%s", stderr.String())
			}
			dest, err := os.Readlink(filepath.Join(localBin, "mcp-bridge"))
			if c.wantLink {
				if err != nil || dest != bin {
					t.Fatalf("~/.local/bin/mcp-bridge -> %q (%v), want a link to %s", dest, err, bin)
				}
				if !strings.Contains(stderr.String(), "Check your config: mcp-bridge doctor") {
					t.Errorf("the last line should name the linked command:\n%s", stderr.String())
				}
				// The link is what a user types: the CLI answers through it.
				out, err := exec.Command(filepath.Join(localBin, "mcp-bridge"), "--help").CombinedOutput()
				if err != nil || !strings.Contains(string(out), "mcp-bridge") {
					t.Errorf("mcp-bridge --help through the link: %v\n%s", err, out)
				}
				return
			}
			if err == nil {
				t.Errorf("~/.local/bin/mcp-bridge became a link to %q", dest)
			}
			if c.existing != "" {
				if got, _ := os.ReadFile(filepath.Join(localBin, "mcp-bridge")); string(got) != c.existing {
					t.Errorf("the user's file was changed: %q", got)
				}
			}
		})
	}
}

// TestOneTestCommand: the README's test command is the script CI runs, and that script
// installs the npm servers and makes their tests fail rather than skip.
func TestOneTestCommand(t *testing.T) {
	t.Parallel()
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme := readREADME(t, root)
	_, dev, ok := strings.Cut(readme, "## Development\n")
	if !ok || !strings.Contains(dev, "\n./run-tests ") {
		t.Errorf("README \"Development\" does not give ./run-tests as the test command")
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\./run-tests$`).Match(ci) {
		t.Errorf(".ci/run does not call ./run-tests")
	}
	if regexp.MustCompile(`(?m)^go test -race`).Match(ci) {
		t.Errorf(".ci/run runs go test itself beside ./run-tests")
	}
	script, err := os.ReadFile(filepath.Join(root, "run-tests"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"npm install", "MCP_NPM_BIN=", "MCP_BRIDGE_REQUIRE_NPM=1", "go test -race"} {
		if !bytes.Contains(script, []byte(want)) {
			t.Errorf("./run-tests lacks %q", want)
		}
	}
}
