// Package testutil holds helpers for mcp-bridge's tests: building binaries
// (in particular the fake MCP server in testkit/fakemcp), finding the
// processes a test started by a marker string in their argv, and reading the
// fake server's -record files.
package testutil

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/record"
)

// FakeServerPkg is the import path of the fake MCP server binary.
const FakeServerPkg = "github.com/zot-mcp/mcp-bridge/testkit/fakemcp"

// FakeServer builds testkit/fakemcp (once per test process) and returns the
// path of the binary. It fails the test if the build fails.
func FakeServer(t testing.TB) string {
	t.Helper()
	return BuildBinary(t, FakeServerPkg)
}

// build is the outcome of building one package.
type build struct {
	once sync.Once
	path string
	err  error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
	binDir   string // shared temporary directory for all builds

	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// BuildBinary builds the package pkg (an import path, e.g.
// "github.com/zot-mcp/mcp-bridge" for the root main package) with
// `go build -o`, run from the module root, once per test process, and
// returns the path of the binary. The binary is named after the last
// element of pkg. It fails the test if the build fails. Call RemoveBuilt
// from TestMain to delete the binaries when the tests are done.
func BuildBinary(t testing.TB, pkg string) string {
	t.Helper()
	buildsMu.Lock()
	b, ok := builds[pkg]
	if !ok {
		b = &build{}
		builds[pkg] = b
	}
	buildsMu.Unlock()

	b.once.Do(func() { b.path, b.err = buildPackage(pkg) })
	if b.err != nil {
		t.Fatalf("build %s: %v", pkg, b.err)
	}
	return b.path
}

// RemoveBuilt deletes every binary built by BuildBinary in this process.
// It is meant for TestMain, after m.Run; later BuildBinary calls fail.
func RemoveBuilt() {
	buildsMu.Lock()
	defer buildsMu.Unlock()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// ModuleRoot returns the directory holding the main module's go.mod, as
// reported by `go env GOMOD`.
func ModuleRoot() (string, error) {
	rootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			rootErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			rootErr = errors.New("not inside a Go module")
			return
		}
		rootDir = filepath.Dir(gomod)
	})
	return rootDir, rootErr
}

func buildPackage(pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	buildsMu.Lock()
	if binDir == "" {
		binDir, err = os.MkdirTemp("", "mcp-bridge-testbin-")
	}
	dir := binDir
	buildsMu.Unlock()
	if err != nil {
		return "", err
	}
	// A directory per package keeps the binary's name clean (it shows up in
	// argv[0] and in process listings) without clashes between packages.
	pkgDir, err := os.MkdirTemp(dir, "pkg-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(pkgDir, path.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, msg)
	}
	noteSources(root, pkg)
	return out, nil
}

// noteSources stats the module's source files pkg is built from, so that
// `go test` result caching notices when they change even though the test
// binary itself does not depend on them.
func noteSources(root, pkg string) {
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if not .Standard}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}`, pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return
	}
	for _, f := range strings.Split(string(out), "\n") {
		if f != "" && strings.HasPrefix(f, root+string(filepath.Separator)) {
			_, _ = os.Stat(f)
		}
	}
}

// NewMarker returns a marker string unique to this test and process, fit for
// the fake server's -marker flag.
func NewMarker(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return "fakemcp-marker-" + name + "-" + hex.EncodeToString(b[:])
}

// ProcsWithMarker lists the pids of live (not zombie) processes whose
// /proc/<pid>/cmdline contains marker. The calling process is never listed.
func ProcsWithMarker(marker string) []int {
	if marker == "" {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if st := procState(pid); st == 'Z' || st == 'X' || st == 0 {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// procState returns the state letter from /proc/<pid>/stat, or 0 if the
// process is gone.
func procState(pid int) byte {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may contain anything, so look
	// after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}

// WaitNoProcs polls until no live process carries marker and returns nil, or
// returns the pids still alive when ctx ends.
func WaitNoProcs(ctx context.Context, marker string) []int {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pids := ProcsWithMarker(marker)
		if len(pids) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return pids
		case <-tick.C:
		}
	}
}

// KillProcsWithMarker sends SIGKILL to every live process carrying marker.
// It is meant for test cleanup of processes the test itself started (use a
// marker from NewMarker so nothing else matches).
func KillProcsWithMarker(marker string) {
	for _, pid := range ProcsWithMarker(marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// RecordLine is one line of a fake server -record file (record.Line, where the format is
// defined once for the writer and the readers).
type RecordLine = record.Line

// ReadRecord parses the -record file at path. A missing file yields no
// lines; a trailing line without a newline (still being written) is
// ignored. It fails the test on a malformed line.
func ReadRecord(t testing.TB, path string) []RecordLine {
	t.Helper()
	lines, err := record.Read(path)
	if err != nil {
		t.Fatalf("read record %s: %v", path, err)
	}
	return lines
}

// CountMethod is how many messages of the record at path have the method.
func CountMethod(t testing.TB, path, method string) int {
	t.Helper()
	n := 0
	for _, l := range ReadRecord(t, path) {
		if l.Method == method {
			n++
		}
	}
	return n
}

// CountLines is how many lines the file at path holds (0 when it does not exist): the
// fake server's -starts file has one per process start.
func CountLines(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return bytes.Count(data, []byte("\n"))
}

// WaitRecord polls the -record file at path until a line satisfies match and
// returns it. It fails the test if none appears within timeout.
func WaitRecord(t testing.TB, path string, timeout time.Duration, match func(RecordLine) bool) RecordLine {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		lines, err := record.Read(path)
		if err != nil {
			t.Fatalf("read record %s: %v", path, err)
		}
		for _, l := range lines {
			if match(l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no matching line in record %s after %v; have %d lines", path, timeout, len(lines))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartHTTP starts the fake server with args, which must include -http ADDR
// or -sse ADDR, waits for its "LISTENING <url>" line and returns the URL
// (http://127.0.0.1:port/mcp or .../sse). The server is killed when the test
// ends; its stderr is logged if the test failed.
func StartHTTP(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(FakeServer(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start fake server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("fake server %v stderr:\n%s", args, stderr.String())
		}
	})

	type result struct {
		url string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err != nil {
			ch <- result{err: fmt.Errorf("reading LISTENING line: %w (got %q)", err, line)}
			return
		}
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTENING ")
		if !ok {
			ch <- result{err: fmt.Errorf("first stdout line is %q, want LISTENING <url>", line)}
		} else {
			ch <- result{url: url}
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("fake server %v: %v\nstderr:\n%s", args, res.err, stderr.String())
		}
		return res.url
	case <-time.After(30 * time.Second):
		t.Fatalf("fake server %v did not announce its URL\nstderr:\n%s", args, stderr.String())
		return ""
	}
}

// SyncBuffer is a bytes.Buffer safe for concurrent use (log sinks written by
// goroutines that may outlive the code reading them).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// NPMBin returns the directory holding the npm MCP servers' bin links: $MCP_NPM_BIN, else
// <module root>/.ci/node/node_modules/.bin (where .ci/run installs them). When they are
// missing the test fails under CI=true (CI must never skip them) and is skipped otherwise.
func NPMBin(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCP_NPM_BIN")
	if dir == "" {
		if root, err := ModuleRoot(); err == nil {
			dir = filepath.Join(root, ".ci", "node", "node_modules", ".bin")
		}
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	if os.Getenv("CI") == "true" || os.Getenv("MCP_BRIDGE_REQUIRE_NPM") != "" {
		t.Fatalf("npm MCP servers not installed at %q: ./run-tests installs them (cd .ci/node && npm install)", dir)
	}
	t.Skipf("npm MCP servers not installed (./run-tests installs them and runs every test); looked in %q", dir)
	return ""
}

// CatalogPath returns the repository's copy of the real tool catalog
// (testdata/mcp-catalog/catalog.json), which the tests and benchmarks use. It is
// found relative to this source file, so it works from any package directory
// and in a clone with no sibling folders. A missing file is a failure, never a skip.
func CatalogPath(t testing.TB) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the testutil source file to find testdata/mcp-catalog")
	}
	p := filepath.Join(filepath.Dir(self), "..", "..", "testdata", "mcp-catalog", "catalog.json")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("tool catalog fixture missing: %v (it is tracked in git under testdata/mcp-catalog)", err)
	}
	return p
}

// Catalog2Paths are the second tool catalog's parts (testdata/mcp-catalog2/catalog-N.json,
// in order; together one catalog, each with some of its servers).
func Catalog2Paths(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(filepath.Dir(CatalogPath(t))), "mcp-catalog2")
	var paths []string
	for n := 1; ; n++ {
		p := filepath.Join(dir, "catalog-"+strconv.Itoa(n)+".json")
		if _, err := os.Stat(p); err != nil {
			break
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		t.Fatalf("second tool catalog missing: no %s (it is tracked in git)", filepath.Join(dir, "catalog-1.json"))
	}
	return paths
}
