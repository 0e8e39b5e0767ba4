package main

// The benchmark suite behind BENCHMARKS.md (written by `go run ./testkit/benchreport`).
//
// Binary-level benchmarks drive the real mcp-bridge binary the way zot does (hello →
// hello_ack → registrations → ready, then tool calls) against the fake MCP server in
// testkit/fakemcp; in-process ones use the public search API on the tool catalog fixture
// (testdata/mcp-catalog/catalog.json, found in an ancestor directory; missing is a failure).
//
// Besides ns/op each benchmark reports its figures with b.ReportMetric. Every figure's
// reference is measured in the same run (often in the same loop iteration). Nothing here
// asserts on time: a benchmark fails only when the bridge misbehaves (wrong frames, a
// leftover process). Nothing binds a socket.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zot-mcp/mcp-bridge/resources"
	"github.com/zot-mcp/mcp-bridge/tasks"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/catalog"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/search"
	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// benchGuard bounds every wait of a benchmark: a hang guard, never a measurement.
const benchGuard = 2 * time.Minute

// typicalQueries are the task phrasings used for "after one typical search" figures.
var typicalQueries = testutil.TypicalQueries()

// ---------------------------------------------------------------------------------------
// Shared fixtures

// catServer is one server of the tool catalog fixture, its tools in cache form.
type catServer struct {
	Name  string       `json:"name"`
	Tools []cache.Tool `json:"tools"`
}

var (
	catalogOnce    sync.Once
	catalogServers []catServer
	catalogErr     error
)

// benchCatalog loads testdata/mcp-catalog/catalog.json from the nearest ancestor that has it.
func benchCatalog(b *testing.B) []catServer {
	b.Helper()
	path := testutil.CatalogPath(b)
	catalogOnce.Do(func() {
		data, err := os.ReadFile(path)
		if err != nil {
			catalogErr = err
			return
		}
		var c struct {
			Servers []catServer `json:"servers"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			catalogErr = fmt.Errorf("%s: %w", path, err)
			return
		}
		catalogServers = c.Servers
	})
	if catalogErr != nil {
		b.Fatal(catalogErr)
	}
	if len(catalogServers) == 0 {
		b.Fatal("the catalog has no servers")
	}
	return catalogServers
}

// bridgeHelperTool reports whether name is one of the bridge's own tools registered beside
// the search tool whenever servers are configured (reading resources, fetching task results).
func bridgeHelperTool(name string) bool {
	return name == resources.ReadResourceToolName || name == tasks.TaskResultToolName
}

// catalogToolCount is the number of tools in the catalog.
func catalogToolCount(cat []catServer) int {
	n := 0
	for _, s := range cat {
		n += len(s.Tools)
	}
	return n
}

// layout spreads nTools catalog tools over nServers servers. Servers are named after
// catalog servers (suffixed "-2", "-3"… once the catalog's names run out); tools are taken
// in catalog order, the catalog replicated as often as needed, so each server holds runs of
// related tools. Repeated tool names within one server get a numeric suffix.
func layout(cat []catServer, nServers, nTools int) ([]string, map[string][]cache.Tool) {
	var flat []cache.Tool
	for _, s := range cat {
		flat = append(flat, s.Tools...)
	}
	names := make([]string, nServers)
	for i := range names {
		names[i] = cat[i%len(cat)].Name
		if r := i / len(cat); r > 0 {
			names[i] += "-" + strconv.Itoa(r+1)
		}
	}
	tools := make(map[string][]cache.Tool, nServers)
	next := 0
	for i, name := range names {
		quota := nTools / nServers
		if i < nTools%nServers {
			quota++
		}
		seen := map[string]bool{}
		list := make([]cache.Tool, 0, quota)
		for range quota {
			t := flat[next%len(flat)]
			next++
			base := t.Name
			for k := 2; seen[t.Name]; k++ {
				t.Name = base + "_" + strconv.Itoa(k)
			}
			seen[t.Name] = true
			list = append(list, t)
		}
		tools[name] = list
	}
	return names, tools
}

// home is one isolated zot home (ZOT_HOME) with a project directory, the bridge binary,
// the fake server and a marker that tags every fake server process of this benchmark.
type home struct {
	b       testing.TB
	bin     string
	fake    string
	dir     string
	project string
	marker  string
	env     []string
}

func newHome(b testing.TB) *home {
	b.Helper()
	bin := os.Getenv("MCP_BRIDGE_BENCH_BIN") // a given build (say, one with -tags benchprof)
	if bin == "" {
		bin = testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge")
	}
	h := &home{b: b, bin: bin, fake: testutil.FakeServer(b),
		dir: b.TempDir(), project: b.TempDir(), marker: testutil.NewMarker(b)}
	h.env = append(os.Environ(), "ZOT_HOME="+h.dir)
	b.Cleanup(func() { testutil.KillProcsWithMarker(h.marker) })
	return h
}

// server is an mcpServers entry running the fake server; name keeps the args distinct.
func (h *home) server(name string, extra ...string) map[string]any {
	return map[string]any{"command": h.fake,
		"args": append([]string{"-marker", h.marker, "-max-lifetime", "10m", "-name", name}, extra...)}
}

// writeConfig writes $ZOT_HOME/mcp.json; exposure "" leaves toolExposure at its default.
func (h *home) writeConfig(servers map[string]any, exposure string) {
	h.b.Helper()
	top := map[string]any{"mcpServers": servers}
	if exposure != "" {
		top["toolExposure"] = exposure
	}
	raw, err := json.Marshal(top)
	if err != nil {
		h.b.Fatal(err)
	}
	if err := os.WriteFile(config.GlobalPath(h.dir), raw, 0o600); err != nil {
		h.b.Fatal(err)
	}
}

// fillCache writes the tool cache with cache.Update, one entry per configured server
// carrying that server's fingerprint, so the bridge trusts every entry and spawns nothing.
func (h *home) fillCache(tools map[string][]cache.Tool) {
	h.b.Helper()
	cfg := config.Load(config.Options{ZotHome: h.dir, ProjectDir: h.project})
	if len(cfg.Problems) > 0 {
		h.b.Fatalf("config problems: %v", cfg.Problems)
	}
	put := make(map[string]*cache.Server, len(cfg.Servers))
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		put[s.Name] = &cache.Server{Fingerprint: s.Fingerprint(), ServerName: s.Name, Tools: tools[s.Name]}
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	if _, err := cache.Update(ctx, cache.DefaultPath(h.dir), put, nil, time.Now); err != nil {
		h.b.Fatal(err)
	}
}

// refresh fills the cache the way a user does: `mcp-bridge refresh` lists every server.
func (h *home) refresh() {
	h.b.Helper()
	cmd := exec.Command(h.bin, "refresh")
	cmd.Env = h.env
	cmd.Dir = h.project
	if out, err := cmd.CombinedOutput(); err != nil {
		h.b.Fatalf("mcp-bridge refresh: %v\n%s", err, out)
	}
	h.noProcs("mcp-bridge refresh")
}

// noProcs fails the benchmark if a fake server process of this home is still alive.
func (h *home) noProcs(after string) {
	h.b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if left := testutil.WaitNoProcs(ctx, h.marker); len(left) > 0 {
		testutil.KillProcsWithMarker(h.marker)
		h.b.Fatalf("server processes left behind after %s: %v", after, left)
	}
}

// capped keeps the first 64 KiB written to it (the bridge's stderr, shown on failure).
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := 64<<10 - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// startHost starts the bridge under the exttest fake host and completes the handshake.
func (h *home) startHost(ctx context.Context) (*exttest.Host, []exttest.Frame, *capped) {
	host, frames, stderr, _ := h.startHostCmd(ctx)
	return host, frames, stderr
}

// startHostCmd is startHost that also returns the bridge's command (for its pid).
func (h *home) startHostCmd(ctx context.Context) (*exttest.Host, []exttest.Frame, *capped, *exec.Cmd) {
	return h.startHostBin(ctx, h.bin)
}

// startHostBin is startHostCmd with the bridge binary bin.
func (h *home) startHostBin(ctx context.Context, bin string) (*exttest.Host, []exttest.Frame, *capped, *exec.Cmd) {
	h.b.Helper()
	cmd := exec.Command(bin)
	cmd.Env = h.env
	cmd.Dir = filepath.Dir(bin)
	stderr := &capped{}
	cmd.Stderr = stderr
	host := exttest.StartProcess(h.b, cmd)
	host.ExpectHello(ctx)
	frames := host.Handshake(ctx, h.ack())
	return host, frames, stderr, cmd
}

func (h *home) ack() exttest.Ack {
	return exttest.Ack{Cwd: h.project, Capabilities: []string{"call_tool"}, ZotVersion: "0.0.0", Provider: "bench", Model: "bench"}
}

// stopHost shuts the bridge down gracefully and checks that no server outlived it.
func (h *home) stopHost(ctx context.Context, host *exttest.Host, stderr *capped) {
	h.b.Helper()
	if err := host.Shutdown(ctx); err != nil {
		h.b.Fatalf("shutdown: %v\nbridge stderr:\n%s", err, stderr)
	}
	if err := host.Wait(ctx); err != nil {
		h.b.Fatalf("bridge exit: %v\nbridge stderr:\n%s", err, stderr)
	}
	h.noProcs("bridge shutdown")
}

// callOK calls a tool through the fake host and fails on any error result. Call it from
// the benchmark's goroutine only; other goroutines use callErr.
func callOK(ctx context.Context, b *testing.B, host *exttest.Host, id, name string, args any) exttest.ToolResult {
	r, err := callErr(ctx, host, id, name, args)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// callErr calls a tool through the fake host; an error result is an error.
func callErr(ctx context.Context, host *exttest.Host, id, name string, args any) (exttest.ToolResult, error) {
	r, err := host.CallTool(ctx, id, name, args)
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	if r.IsError {
		return r, fmt.Errorf("%s: error result: %s", name, r.Text())
	}
	return r, nil
}

// regDef is a register_tool frame's tool definition.
type regDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Deferred    bool            `json:"deferred"`
}

// size is what the definition costs in a model request: name + description + schema.
func (d regDef) size() int { return len(d.Name) + len(d.Description) + len(d.Schema) }

func regDefs(b *testing.B, frames []exttest.Frame) []regDef {
	var out []regDef
	for _, f := range frames {
		if f.Type != "register_tool" {
			continue
		}
		var d regDef
		if err := f.Decode(&d); err != nil {
			b.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// quantile returns the q-quantile (nearest rank) of xs; xs is sorted in place.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// ---------------------------------------------------------------------------------------
// Startup: hello_ack → ready, and resident memory after ready

// rawBridge is the bridge binary on plain pipes: the startup benchmark reads frames with a
// bare line reader so the measuring side adds as little as the real host does.
type rawBridge struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *capped
}

func (h *home) spawnRaw() *rawBridge {
	h.b.Helper()
	cmd := exec.Command(h.bin)
	cmd.Env = h.env
	cmd.Dir = filepath.Dir(h.bin)
	stderr := &capped{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		h.b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		h.b.Fatal(err)
	}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		h.b.Fatal(err)
	}
	// If the benchmark fails before stop, the bridge must not outlive it.
	h.b.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return &rawBridge{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: stderr}
}

// line reads one line and returns its start (up to 64 bytes, enough to tell the frame
// type) and its full length without the newline.
func (r *rawBridge) line() (head []byte, n int, err error) {
	for {
		chunk, err := r.out.ReadSlice('\n')
		if head == nil {
			head = append([]byte(nil), chunk[:min(len(chunk), 64)]...)
		}
		n += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return head, n, err
		}
		return bytes.TrimSuffix(head, []byte("\n")), n - 1, nil
	}
}

// until reads lines until one equals frame; it returns the register_tool frames and bytes seen.
func (r *rawBridge) until(frame string) (tools, bytesRead int, err error) {
	for {
		head, n, err := r.line()
		if err != nil {
			return tools, bytesRead, fmt.Errorf("reading until %s: %w", frame, err)
		}
		bytesRead += n + 1
		if string(head) == frame {
			return tools, bytesRead, nil
		}
		if bytes.HasPrefix(head, []byte(`{"type":"register_tool"`)) {
			tools++
		}
	}
}

// capture reads lines until one equals frame and returns every byte read, that line included.
func (r *rawBridge) capture(frame string) ([]byte, error) {
	var out []byte
	for {
		line, err := r.out.ReadSlice('\n')
		out = append(out, line...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("reading until %s: %w", frame, err)
		}
		if i := bytes.LastIndexByte(out[:len(out)-1], '\n'); string(out[i+1:len(out)-1]) == frame {
			return out, nil
		}
	}
}

// pipeFloor is the time to move data through an os.Pipe to the reader the startup
// benchmark uses (a 1 MiB bufio.Reader reading lines up to the ready frame): the same
// bytes the bridge writes between hello_ack and ready, written whole by a goroutine that
// is already running. It is the floor the bridge's startup is compared with.
func pipeFloor(b *testing.B, data []byte) float64 {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close()
	start := make(chan struct{})
	werr := make(chan error, 1)
	go func() {
		<-start
		_, err := pw.Write(data)
		werr <- errors.Join(err, pw.Close())
	}()
	r := &rawBridge{out: bufio.NewReaderSize(pr, 1<<20)}
	t0 := time.Now()
	close(start)
	_, n, err := r.until(`{"type":"ready"}`)
	d := time.Since(t0)
	if err != nil || n != len(data) {
		b.Fatalf("pipe floor: read %d of %d bytes: %v", n, len(data), err)
	}
	if err := <-werr; err != nil {
		b.Fatal(err)
	}
	return ms(d)
}

// stop sends shutdown, waits for the ack and the exit.
func (r *rawBridge) stop() error {
	if _, err := io.WriteString(r.stdin, `{"type":"shutdown"}`+"\n"); err != nil {
		return err
	}
	if _, _, err := r.until(`{"type":"shutdown_ack"}`); err != nil {
		return err
	}
	_ = r.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(benchGuard):
		_ = r.cmd.Process.Kill()
		return errors.New("bridge did not exit after shutdown")
	}
}

// cpuTime is the CPU time pid's threads have used, to the nanosecond (cpuSplit).
func cpuTime(pid int) (time.Duration, error) {
	c, err := cpuSplit(pid)
	return c.total, err
}

// cpuTimes is the CPU time a process has used, and the same split by where it ran.
type cpuTimes struct {
	// total is the sum of the threads' time on a CPU from /proc/<pid>/task/*/schedstat,
	// in nanoseconds: /proc/<pid>/stat counts 10 ms ticks, which over a few hundred calls
	// is coarser than a call's cost. A thread that exits takes its time with it; the Go
	// processes measured here keep their threads.
	total time.Duration
	// user and sys, from /proc/<pid>/stat in 10 ms ticks (meaningful over thousands of
	// calls, not one), are the process's own code and the kernel's work on its behalf.
	user, sys time.Duration
}

// cpuSplit reads pid's CPU time: the split shows whether a process in the middle costs
// more in its own code or in the kernel's (pipes, wake-ups), which two processes moving
// the same bytes pay alike.
func cpuSplit(pid int) (cpuTimes, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	data, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	c, err := parseStatCPU(data)
	if err != nil {
		return cpuTimes{}, err
	}
	tasks, err := os.ReadDir(proc + "/task")
	if err != nil {
		return cpuTimes{}, err
	}
	read := 0
	for _, t := range tasks {
		data, err := os.ReadFile(proc + "/task/" + t.Name() + "/schedstat")
		if errors.Is(err, fs.ErrNotExist) {
			continue // the thread ended
		}
		if err != nil {
			return cpuTimes{}, fmt.Errorf("thread %s of %d: %w", t.Name(), pid, err)
		}
		d, err := parseSchedstat(data)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("thread %s of %d: %w", t.Name(), pid, err)
		}
		c.total += d
		read++
	}
	if read == 0 {
		// Without per-thread schedstat (a kernel built without it) every figure would
		// read as zero: say so rather than report a bridge that costs nothing.
		return cpuTimes{}, fmt.Errorf("no thread of %d has a readable schedstat", pid)
	}
	return c, nil
}

// parseSchedstat takes a thread's time on a CPU, the first of the three numbers in
// /proc/<pid>/task/<tid>/schedstat (nanoseconds).
func parseSchedstat(data []byte) (time.Duration, error) {
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return 0, errors.New("short schedstat")
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("bad schedstat %q", f[0])
	}
	return time.Duration(ns), nil
}

// parseStatCPU takes utime and stime from a /proc/<pid>/stat line. The command name,
// in parentheses, may hold spaces and parentheses itself, so fields are counted from
// the last ')'.
func parseStatCPU(data []byte) (cpuTimes, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return cpuTimes{}, errors.New("short /proc/<pid>/stat")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return cpuTimes{}, errors.New("short /proc/<pid>/stat")
	}
	// Fields after the command: state is f[0], utime f[11], stime f[12].
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return cpuTimes{}, errors.New("bad /proc/<pid>/stat")
	}
	return cpuTimes{user: time.Duration(ut) * 10 * time.Millisecond, sys: time.Duration(st) * 10 * time.Millisecond}, nil
}

// ctxSwitches sums the context switches of every thread of pid (voluntary: a thread went
// to sleep; nonvoluntary: it was preempted), from /proc/<pid>/task/*/status.
func ctxSwitches(pid int) (float64, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var n float64
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					return 0, err
				}
				n += x
			}
		}
	}
	return n, nil
}

// rssKB reads VmRSS of pid from /proc/<pid>/status.
func rssKB(pid int) (float64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				return strconv.ParseFloat(f[0], 64)
			}
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

// RSS of the idle bridge is read once it is idle after ready (idleRSSKB), in the first
// rssSamples iterations.
const (
	rssSettle  = 1000 * time.Millisecond
	rssSamples = 3
	// idleStep is how long the bridge must use no CPU to count as idle; idleMax bounds
	// the wait (on a loaded machine the work after ready can take seconds).
	idleStep = 250 * time.Millisecond
	idleMax  = 20 * time.Second
)

// idleRSSKB is the resident set of process pid once it is idle: at least rssSettle
// after ready and then used no CPU for idleStep (the work after ready — decoding the
// cache, writing the startup file, building the index, handing the garbage back — is
// over), or after idleMax, whichever comes first.
func idleRSSKB(pid int) (float64, error) {
	if err := waitIdle(pid); err != nil {
		return 0, err
	}
	return rssKB(pid)
}

// waitIdle waits until process pid is idle: at least rssSettle, then until it used no
// CPU for idleStep and none of its threads waits on I/O, at most idleMax.
func waitIdle(pid int) error {
	time.Sleep(rssSettle)
	deadline := time.Now().Add(idleMax)
	last, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	for {
		time.Sleep(idleStep)
		now, err := cpuTicks(pid)
		if err != nil {
			return err
		}
		if now == last && !inIO(pid) || time.Now().After(deadline) {
			return nil
		}
		last = now
	}
}

// inIO reports whether a thread of process pid waits in the kernel uninterruptibly (state
// D: a write or an fsync of the startup file), which uses no CPU but is not idle.
func inIO(pid int) bool {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	for _, p := range tasks {
		data, err := os.ReadFile(p)
		if i := bytes.LastIndexByte(data, ')'); err == nil && i >= 0 && i+2 < len(data) && data[i+2] == 'D' {
			return true
		}
	}
	return false
}

// cpuTicks is the CPU time process pid has used (user + system, in clock ticks).
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields count after it.
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, errors.New("short /proc/" + strconv.Itoa(pid) + "/stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc/" + strconv.Itoa(pid) + "/stat")
	}
	return utime + stime, nil
}

// BenchmarkStartup measures, for the real binary, the time from writing hello_ack to
// reading ready (process spawn and hello excluded) with S configured servers and N cached
// tools, all asleep; and the bridge's resident memory (VmRSS) right after ready and once
// idle (idleRSSKB). ready-decoded is a start without the startup file, ready-payloads one
// whose sent section is stale, ready-protocol the first start after a server's MCP
// revision was written to the cache. The host keeps
// registrations for 250 ms after hello_ack; the target is 20 ms at 50 servers / 2,000 tools.
// Run with -benchtime=Nx: every iteration spawns a bridge (untimed).
func BenchmarkStartup(b *testing.B) {
	cat := benchCatalog(b)
	cases := []struct{ servers, tools int }{
		{10, 100}, {10, 2000}, {10, 10000},
		{50, 0}, {50, 100}, {50, 2000}, {50, 10000}, {50, 20000},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("servers=%d/tools=%d", c.servers, c.tools), func(b *testing.B) {
			h := newHome(b)
			names, tools := layout(cat, c.servers, c.tools)
			servers := map[string]any{}
			for _, n := range names {
				servers[n] = h.server(n)
			}
			h.writeConfig(servers, "")
			h.fillCache(tools)
			info, err := os.Stat(cache.DefaultPath(h.dir))
			if err != nil {
				b.Fatal(err)
			}
			ack, err := json.Marshal(map[string]any{"type": "hello_ack", "protocol_version": 1, "capabilities": []string{"call_tool"},
				"zot_version": "0.0.0", "provider": "bench", "model": "bench", "cwd": h.project, "extension_dir": filepath.Dir(h.bin), "data_dir": h.dir})
			if err != nil {
				b.Fatal(err)
			}
			ack = append(ack, '\n')

			// Starts without the startup file decode the cache (the first start after a
			// refresh by an older bridge, or after the file was removed); the bridge writes
			// the file after ready, and every later start registers from it.
			framesPath := cache.FramesPath(cache.DefaultPath(h.dir))
			var decoded []float64
			for i := 0; i < 3; i++ {
				if err := os.Remove(framesPath); err != nil && !os.IsNotExist(err) {
					b.Fatal(err)
				}
				decoded = append(decoded, h.timeStartup(ack))
			}
			waitForFile(b, framesPath)
			// Starts with another configuration than the one the file's sent section was
			// made for build their frames from its payloads; each writes the section again.
			var payloads []float64
			for i := 0; i < 3; i++ {
				dropSentSection(b, cache.DefaultPath(h.dir))
				payloads = append(payloads, h.timeStartup(ack))
			}
			// Starts after the cache changed under the startup file: a server's MCP revision
			// learned (cache.SetProtocol, which a start that talked to a server writes) before
			// each. Nothing a registration is made from changed.
			var changed []float64
			for i := 0; i < 3 && len(names) > 0; i++ {
				waitForFile(b, framesPath)
				if err := cache.SetProtocol(b.Context(), cache.DefaultPath(h.dir), "", names[0], []string{"2025-06-18", "2025-11-25"}[i%2], "bench"); err != nil {
					b.Fatal(err)
				}
				changed = append(changed, h.timeStartup(ack))
			}

			// What the bridge writes from hello_ack to ready, for the pipe floor.
			sent := h.captureStartup(ack)

			var lat, floor, rss, rssReady []float64
			var frameBytes int
			for b.Loop() {
				b.StopTimer()
				r := h.spawnRaw()
				if head, _, err := r.line(); err != nil || !bytes.HasPrefix(head, []byte(`{"type":"hello"`)) {
					b.Fatalf("first line %q, %v; want hello\nbridge stderr:\n%s", head, err, r.stderr)
				}
				b.StartTimer()
				t0 := time.Now()
				if _, err := r.stdin.Write(ack); err != nil {
					b.Fatal(err)
				}
				n, nb, err := r.until(`{"type":"ready"}`)
				d := time.Since(t0)
				b.StopTimer()
				if err != nil {
					b.Fatalf("%v\nbridge stderr:\n%s", err, r.stderr)
				}
				if want := c.tools + 3; n != want { // + mcp__search_tools, mcp__read_resource and mcp__task_result
					b.Fatalf("%d register_tool frames before ready, want %d\nbridge stderr:\n%s", n, want, r.stderr)
				}
				kb, err := rssKB(r.cmd.Process.Pid)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, ms(d))
				// Side by side: the same bytes through a bare pipe to the same reader.
				floor = append(floor, pipeFloor(b, sent))
				rssReady = append(rssReady, kb/1024)
				if len(rss) < rssSamples {
					// Idle: ready sent, every server asleep, startup garbage collected.
					if kb, err = idleRSSKB(r.cmd.Process.Pid); err != nil {
						b.Fatal(err)
					}
					rss = append(rss, kb/1024)
				}
				frameBytes = nb
				if err := r.stop(); err != nil {
					b.Fatalf("stop: %v\nbridge stderr:\n%s", err, r.stderr)
				}
				b.StartTimer()
			}
			h.noProcs("startup (no server may be spawned at startup)")
			b.ReportMetric(quantile(lat, 0.5), "ms/ready")
			b.ReportMetric(quantile(floor, 0.5), "ms/pipe-floor")
			b.ReportMetric(quantile(lat, 0.5)/quantile(floor, 0.5), "ready/pipe-floor")
			b.ReportMetric(quantile(decoded, 0.5), "ms/ready-decoded")
			b.ReportMetric(quantile(payloads, 0.5), "ms/ready-payloads")
			if len(changed) > 0 {
				b.ReportMetric(quantile(changed, 0.5), "ms/ready-protocol")
			}
			b.ReportMetric(quantile(rss, 0.5), "rss-MB")
			b.ReportMetric(quantile(rssReady, 0.5), "rss-at-ready-MB")
			b.ReportMetric(float64(frameBytes), "frame-bytes")
			b.ReportMetric(float64(info.Size()), "cache-bytes")
		})
	}
}

// timeStartup spawns the bridge once and returns hello_ack → ready in milliseconds; it
// waits until the bridge is idle after ready (waitIdle) so its after-ready work (writing
// the startup file) completes before it is stopped.
func (h *home) timeStartup(ack []byte) float64 {
	r := h.spawnRaw()
	if head, _, err := r.line(); err != nil || !bytes.HasPrefix(head, []byte(`{"type":"hello"`)) {
		h.b.Fatalf("first line %q, %v; want hello\nbridge stderr:\n%s", head, err, r.stderr)
	}
	t0 := time.Now()
	if _, err := r.stdin.Write(ack); err != nil {
		h.b.Fatal(err)
	}
	if _, _, err := r.until(`{"type":"ready"}`); err != nil {
		h.b.Fatalf("%v\nbridge stderr:\n%s", err, r.stderr)
	}
	d := time.Since(t0)
	if err := waitIdle(r.cmd.Process.Pid); err != nil {
		h.b.Fatal(err)
	}
	if err := r.stop(); err != nil {
		h.b.Fatalf("stop: %v\nbridge stderr:\n%s", err, r.stderr)
	}
	return ms(d)
}

// captureStartup spawns the bridge once and returns every byte it writes from hello_ack to
// ready (ready included).
func (h *home) captureStartup(ack []byte) []byte {
	r := h.spawnRaw()
	if head, _, err := r.line(); err != nil || !bytes.HasPrefix(head, []byte(`{"type":"hello"`)) {
		h.b.Fatalf("first line %q, %v; want hello\nbridge stderr:\n%s", head, err, r.stderr)
	}
	if _, err := r.stdin.Write(ack); err != nil {
		h.b.Fatal(err)
	}
	sent, err := r.capture(`{"type":"ready"}`)
	if err != nil {
		h.b.Fatalf("%v\nbridge stderr:\n%s", err, r.stderr)
	}
	if err := r.stop(); err != nil {
		h.b.Fatalf("stop: %v\nbridge stderr:\n%s", err, r.stderr)
	}
	return sent
}

// dropSentSection rewrites the startup file of the cache at cachePath without its sent
// section (the registrations as sent), keeping its payloads.
func dropSentSection(b *testing.B, cachePath string) {
	stamp, err := cache.StampOf(cachePath)
	if err != nil {
		b.Fatal(err)
	}
	path := cache.FramesPath(cachePath)
	servers, err := cache.ReadFrames(path, stamp)
	if err != nil {
		b.Fatal(err)
	}
	if err := cache.WriteStartup(path, stamp, nil, servers); err != nil {
		b.Fatal(err)
	}
}

// waitForFile waits (bounded) until path exists.
func waitForFile(b *testing.B, path string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s was never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------------------
// What the model sees: tool-definition bytes in the first request and after a search

// BenchmarkToolDefinitions loads the whole catalog (48 servers, 664 tools) into the real
// binary and measures the tool definitions (name + description + schema, as sent in the
// register_tool frames) the model sees:
//
//   - deferred mode: only mcp__search_tools is eager; reference: direct mode, every
//     catalog tool eager (target: at least 99% fewer bytes);
//   - after one typical search: the search tool plus the definitions it activates
//     (mean over typicalQueries);
//   - proxy mode: mcp__search_tools + mcp__call_tool (target ≤ 4 KB), and the size of a
//     proxy-mode search answer (mean over typicalQueries).
//
// The timed loop is a deferred-mode search round trip through the binary (index built).
func BenchmarkToolDefinitions(b *testing.B) {
	cat := benchCatalog(b)
	h := newHome(b)
	servers := map[string]any{}
	tools := map[string][]cache.Tool{}
	for _, s := range cat {
		servers[s.Name] = h.server(s.Name)
		tools[s.Name] = s.Tools
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()

	// Direct mode: every tool eager — the reference.
	h.writeConfig(servers, "direct")
	h.fillCache(tools)
	host, frames, stderr := h.startHost(ctx)
	eagerAll, eagerN := 0, 0
	for _, d := range regDefs(b, frames) {
		if d.Deferred {
			b.Fatalf("direct mode registered %s deferred", d.Name)
		}
		if d.Name != bridge.SearchToolName && !bridgeHelperTool(d.Name) {
			eagerAll += d.size()
			eagerN++
		}
	}
	if want := catalogToolCount(cat); eagerN != want {
		b.Fatalf("direct mode registered %d MCP tools, want %d", eagerN, want)
	}
	h.stopHost(ctx, host, stderr)

	// Proxy mode: search + call tool, and what a search answers.
	h.writeConfig(servers, "proxy")
	host, frames, stderr = h.startHost(ctx)
	proxyDefs := 0
	for _, d := range regDefs(b, frames) {
		if d.Deferred || (d.Name != bridge.SearchToolName && d.Name != bridge.CallToolName && !bridgeHelperTool(d.Name)) {
			b.Fatalf("proxy mode registered %s (deferred %v)", d.Name, d.Deferred)
		}
		proxyDefs += d.size()
	}
	proxyAnswer := 0
	for i, q := range typicalQueries {
		r := callOK(ctx, b, host, "p"+strconv.Itoa(i), bridge.SearchToolName, map[string]any{"query": q})
		proxyAnswer += len(r.Text())
	}
	h.stopHost(ctx, host, stderr)

	// Deferred mode: what the model sees first, and after one search.
	h.writeConfig(servers, "")
	host, frames, stderr = h.startHost(ctx)
	firstReq := 0
	deferred := map[string]int{}
	for _, d := range regDefs(b, frames) {
		if bridgeHelperTool(d.Name) {
			continue // not an MCP tool; activated only by a search that shows a resource or a task hint
		}
		if d.Deferred {
			deferred[d.Name] = d.size()
		} else {
			firstReq += d.size()
		}
	}
	if len(deferred) != eagerN {
		b.Fatalf("deferred mode registered %d deferred tools, want %d", len(deferred), eagerN)
	}
	t0 := time.Now()
	callOK(ctx, b, host, "first", bridge.SearchToolName, map[string]any{"query": typicalQueries[0]}) // builds the index
	firstSearch := time.Since(t0)
	afterSearch, answer, activated := 0, 0, 0
	for i, q := range typicalQueries {
		r := callOK(ctx, b, host, "d"+strconv.Itoa(i), bridge.SearchToolName, map[string]any{"query": q})
		if len(r.ActivateTools) == 0 {
			b.Fatalf("search %q activated nothing: %s", q, r.Text())
		}
		sum := firstReq
		for _, n := range r.ActivateTools {
			sz, ok := deferred[n]
			if !ok {
				b.Fatalf("search %q activated %s, which was not registered", q, n)
			}
			sum += sz
		}
		afterSearch += sum
		answer += len(r.Text())
		activated += len(r.ActivateTools)
	}

	i := 0
	for b.Loop() {
		callOK(ctx, b, host, "s"+strconv.Itoa(i), bridge.SearchToolName, map[string]any{"query": typicalQueries[i%len(typicalQueries)]})
		i++
	}
	b.StopTimer()
	h.stopHost(ctx, host, stderr)

	nq := float64(len(typicalQueries))
	b.ReportMetric(float64(firstReq), "deferred-first-bytes")
	b.ReportMetric(float64(eagerAll), "eager-all-bytes")
	b.ReportMetric(100*(1-float64(firstReq)/float64(eagerAll)), "saved-%")
	b.ReportMetric(float64(afterSearch)/nq, "after-search-bytes")
	b.ReportMetric(float64(activated)/nq, "activated-tools")
	b.ReportMetric(float64(answer)/nq, "deferred-answer-bytes")
	b.ReportMetric(float64(proxyDefs), "proxy-first-bytes")
	b.ReportMetric(float64(proxyAnswer)/nq, "proxy-answer-bytes")
	b.ReportMetric(ms(firstSearch), "first-search-ms")
	b.ReportMetric(float64(eagerN), "tools")
}

// ---------------------------------------------------------------------------------------
// Calls: one forwarded call versus a direct MCP client, and concurrency

// directClient starts the fake server under an mcp-go stdio client (the reference path).
func (h *home) directClient(ctx context.Context, name string, extra ...string) *client.Client {
	h.b.Helper()
	args := append([]string{"-marker", h.marker, "-max-lifetime", "10m", "-name", name}, extra...)
	c, _ := h.initClient(ctx, h.fake, args...)
	return c
}

// relayClient is a direct mcp-go client of the fake server through the relay command,
// which passes the bytes on unchanged: the floor of what a process in the middle adds.
// It returns the relay's process too.
func (h *home) relayClient(ctx context.Context, name string) (*client.Client, *os.Process) {
	h.b.Helper()
	relay := testutil.BuildBinary(h.b, "github.com/zot-mcp/mcp-bridge/testkit/relay")
	return h.initClient(ctx, relay, h.fake, "-marker", h.marker, "-max-lifetime", "10m", "-name", name)
}

// initClient starts command with args as a stdio MCP server and initializes a client of
// it; it returns the server's process too.
func (h *home) initClient(ctx context.Context, command string, args ...string) (*client.Client, *os.Process) {
	h.b.Helper()
	var cmd *exec.Cmd
	c, err := client.NewStdioMCPClientWithOptions(command, nil, args, transport.WithCommandFunc(
		func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		h.b.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "bench-direct", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		h.b.Fatal(err)
	}
	return c, cmd.Process
}

// directCall calls a tool with the direct client (from the benchmark's goroutine).
func directCall(ctx context.Context, b *testing.B, c *client.Client, tool string, args map[string]any) {
	if err := directErr(ctx, c, tool, args); err != nil {
		b.Fatal(err)
	}
}

func directErr(ctx context.Context, c *client.Client, tool string, args map[string]any) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	r, err := c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("direct %s: %w", tool, err)
	}
	if r.IsError {
		return fmt.Errorf("direct %s: error result", tool)
	}
	return nil
}

// BenchmarkCallRoundTrip measures one tools/call through the bridge (fake host → bridge
// binary → fake MCP server over stdio → back) against a direct mcp-go client calling the
// same fake server, and against the same direct client through the relay command (a
// process that passes the bytes on unchanged: the floor of two more pipe hops). Each
// iteration makes one call each way, rotating which goes first, so all see the same
// machine state. Reported: p50 and p99 of each and their ratios, and the CPU time and the
// thread context switches (sleeps and preemptions) of the bridge and the relay processes
// per forwarded call; the CPU time also split into user and system time (-user-us/call,
// -sys-us/call), which tells the work of the process's own code from the kernel's.
// ns/op is the sum of the calls.
//
// With MCP_BRIDGE_BENCH_BASE set to another build of the bridge (say, main's), that build
// serves a fourth way in the same loop, so a change is compared with its base side by side
// on the same machine state: base-p50-us, base-p99-us, base-cpu-us/call and
// bridge-base-p50-ratio, base-switches/call. The two slots are not quite alike: a run with
// one build in both (A/A) shows by how much on the machine at hand, and a change is judged
// against that. With MCP_BRIDGE_BENCHPROF set to a file prefix and builds made
// with -tags benchprof (MCP_BRIDGE_BENCH_BIN, MCP_BRIDGE_BENCH_BASE), each bridge writes a
// CPU profile of the timed loop (<prefix>.<pid>.cpu) and its allocations per call are
// reported (bridge-allocs/call, bridge-bytes/call, and base-… alike).
func BenchmarkCallRoundTrip(b *testing.B) {
	baseBin := os.Getenv("MCP_BRIDGE_BENCH_BASE")
	cases := []struct {
		name, tool string
		args       map[string]any
	}{
		{"echo", "echo", map[string]any{"text": "hello"}},
		{"slow-2ms", "slow", map[string]any{"ms": 2}},
	}
	for _, c := range cases {
		b.Run("tool="+c.name, func(b *testing.B) {
			h := newHome(b)
			h.writeConfig(map[string]any{"fake": h.server("fake")}, "")
			h.refresh()
			ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
			defer cancel()
			host, _, stderr, cmd := h.startHostCmd(ctx)
			direct := h.directClient(ctx, "direct")
			relayed, relayProc := h.relayClient(ctx, "relayed")
			var base *exttest.Host
			var baseStderr *capped
			var baseCmd *exec.Cmd
			if baseBin != "" {
				base, _, baseStderr, baseCmd = h.startHostBin(ctx, baseBin)
			}
			name := "mcp__fake__" + c.tool
			for i := range 50 { // warm up: the first bridge call starts the server
				callOK(ctx, b, host, "w"+strconv.Itoa(i), name, c.args)
				directCall(ctx, b, direct, c.tool, c.args)
				directCall(ctx, b, relayed, c.tool, c.args)
				if base != nil {
					callOK(ctx, b, base, "w"+strconv.Itoa(i), name, c.args)
				}
			}
			var viaBridge, viaDirect, viaRelay, viaBase []float64
			cpu0, err := cpuSplit(cmd.Process.Pid)
			if err != nil {
				b.Fatal(err)
			}
			rcpu0, err := cpuSplit(relayProc.Pid)
			if err != nil {
				b.Fatal(err)
			}
			var bcpu0 time.Duration
			if base != nil {
				if bcpu0, err = cpuTime(baseCmd.Process.Pid); err != nil {
					b.Fatal(err)
				}
			}
			switches := func() (bridge, relay float64) {
				var err1, err2 error
				bridge, err1 = ctxSwitches(cmd.Process.Pid)
				relay, err2 = ctxSwitches(relayProc.Pid)
				if err := errors.Join(err1, err2); err != nil {
					b.Fatal(err)
				}
				return bridge, relay
			}
			cs0, rcs0 := switches()
			var bcs0 float64
			if base != nil {
				if bcs0, err = ctxSwitches(baseCmd.Process.Pid); err != nil {
					b.Fatal(err)
				}
			}
			profiled := []*exec.Cmd{cmd}
			if base != nil {
				profiled = append(profiled, baseCmd)
			}
			profStart(ctx, b, profiled)
			ways := []func(i int){
				func(i int) {
					t0 := time.Now()
					callOK(ctx, b, host, strconv.Itoa(i), name, c.args)
					viaBridge = append(viaBridge, us(time.Since(t0)))
				},
				func(int) {
					t0 := time.Now()
					directCall(ctx, b, direct, c.tool, c.args)
					viaDirect = append(viaDirect, us(time.Since(t0)))
				},
				func(int) {
					t0 := time.Now()
					directCall(ctx, b, relayed, c.tool, c.args)
					viaRelay = append(viaRelay, us(time.Since(t0)))
				},
			}
			if base != nil {
				ways = append(ways, func(i int) {
					t0 := time.Now()
					callOK(ctx, b, base, strconv.Itoa(i), name, c.args)
					viaBase = append(viaBase, us(time.Since(t0)))
				})
			}
			i := 0
			for b.Loop() {
				for k := range ways {
					ways[(i+k)%len(ways)](i)
				}
				i++
			}
			b.StopTimer()
			cs1, rcs1 := switches()
			b.ReportMetric((cs1-cs0)/float64(len(viaBridge)), "bridge-switches/call")
			b.ReportMetric((rcs1-rcs0)/float64(len(viaRelay)), "relay-switches/call")
			allocs := profStop(ctx, b, profiled)
			if allocs != nil {
				for k, who := range []string{"bridge", "base"}[:len(allocs)] {
					b.ReportMetric(allocs[k].mallocs/float64(len(viaBridge)), who+"-allocs/call")
					b.ReportMetric(allocs[k].bytes/float64(len(viaBridge)), who+"-bytes/call")
				}
			}
			cpu1, err := cpuSplit(cmd.Process.Pid)
			if err != nil {
				b.Fatal(err)
			}
			rcpu1, err := cpuSplit(relayProc.Pid)
			if err != nil {
				b.Fatal(err)
			}
			if base != nil {
				bcpu1, err := cpuTime(baseCmd.Process.Pid)
				if err != nil {
					b.Fatal(err)
				}
				bcs1, err := ctxSwitches(baseCmd.Process.Pid)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric((bcs1-bcs0)/float64(len(viaBase)), "base-switches/call")
				// Not stopHost: the other ways' servers still run.
				if err := base.Shutdown(ctx); err != nil {
					b.Fatalf("base shutdown: %v\nbase stderr:\n%s", err, baseStderr)
				}
				if err := base.Wait(ctx); err != nil {
					b.Fatalf("base exit: %v\nbase stderr:\n%s", err, baseStderr)
				}
				bp50 := quantile(viaBase, 0.5)
				b.ReportMetric(bp50, "base-p50-us")
				b.ReportMetric(quantile(viaBase, 0.99), "base-p99-us")
				b.ReportMetric(us(bcpu1-bcpu0)/float64(len(viaBase)), "base-cpu-us/call")
				b.ReportMetric(quantile(viaBridge, 0.5)/bp50, "bridge-base-p50-ratio")
			}
			_ = direct.Close()
			_ = relayed.Close()
			h.stopHost(ctx, host, stderr)

			bp50, bp99 := quantile(viaBridge, 0.5), quantile(viaBridge, 0.99)
			dp50, dp99 := quantile(viaDirect, 0.5), quantile(viaDirect, 0.99)
			b.ReportMetric(bp50, "bridge-p50-us")
			b.ReportMetric(bp99, "bridge-p99-us")
			b.ReportMetric(dp50, "direct-p50-us")
			b.ReportMetric(dp99, "direct-p99-us")
			b.ReportMetric(bp50/dp50, "p50-ratio")
			b.ReportMetric(bp99/dp99, "p99-ratio")
			b.ReportMetric(bp50-dp50, "p50-overhead-us")
			perCall := func(d time.Duration, n int) float64 { return us(d) / float64(n) }
			b.ReportMetric(perCall(cpu1.total-cpu0.total, len(viaBridge)), "bridge-cpu-us/call")
			b.ReportMetric(perCall(cpu1.user-cpu0.user, len(viaBridge)), "bridge-user-us/call")
			b.ReportMetric(perCall(cpu1.sys-cpu0.sys, len(viaBridge)), "bridge-sys-us/call")
			rp50, rp99 := quantile(viaRelay, 0.5), quantile(viaRelay, 0.99)
			b.ReportMetric(rp50, "relay-p50-us")
			b.ReportMetric(rp99, "relay-p99-us")
			b.ReportMetric(rp50/dp50, "relay-p50-ratio")
			b.ReportMetric(bp50/rp50, "bridge-relay-p50-ratio")
			b.ReportMetric(perCall(rcpu1.total-rcpu0.total, len(viaRelay)), "relay-cpu-us/call")
			b.ReportMetric(perCall(rcpu1.user-rcpu0.user, len(viaRelay)), "relay-user-us/call")
			b.ReportMetric(perCall(rcpu1.sys-rcpu0.sys, len(viaRelay)), "relay-sys-us/call")
		})
	}
}

// profStart asks bridges built with -tags benchprof to start profiling (SIGUSR1) when
// MCP_BRIDGE_BENCHPROF is set, and waits until each has.
func profStart(ctx context.Context, b *testing.B, cmds []*exec.Cmd) {
	prefix := os.Getenv("MCP_BRIDGE_BENCHPROF")
	if prefix == "" {
		return
	}
	for _, c := range cmds {
		started := prefix + "." + strconv.Itoa(c.Process.Pid) + ".started"
		_ = os.Remove(started)
		if err := c.Process.Signal(syscall.SIGUSR1); err != nil {
			b.Fatal(err)
		}
		testutil.WaitFor(ctx, b, "a benchprof build to start profiling (built with -tags benchprof?)", func() bool {
			_, err := os.Stat(started)
			return err == nil
		})
	}
}

// profAllocs is what one bridge allocated during the timed loop.
type profAllocs struct{ mallocs, bytes float64 }

// profStop ends what profStart started and returns each bridge's allocations (nil when
// not profiling).
func profStop(ctx context.Context, b *testing.B, cmds []*exec.Cmd) []profAllocs {
	prefix := os.Getenv("MCP_BRIDGE_BENCHPROF")
	if prefix == "" {
		return nil
	}
	var out []profAllocs
	for _, c := range cmds {
		mem := prefix + "." + strconv.Itoa(c.Process.Pid) + ".mem"
		_ = os.Remove(mem)
		if err := c.Process.Signal(syscall.SIGUSR2); err != nil {
			b.Fatal(err)
		}
		var data []byte
		testutil.WaitFor(ctx, b, "a benchprof build's allocation counts", func() bool {
			var err error
			data, err = os.ReadFile(mem)
			return err == nil && len(data) > 0
		})
		var a profAllocs
		var gcs float64
		if _, err := fmt.Sscanf(string(data), "mallocs=%g bytes=%g gcs=%g", &a.mallocs, &a.bytes, &gcs); err != nil {
			b.Fatalf("%s: %v", mem, err)
		}
		out = append(out, a)
	}
	return out
}

// BenchmarkConcurrentCalls sends 64 concurrent calls over 8 servers (the fake server's
// slow tool, 50 ms each; each server runs up to 16 calls at once) through the bridge and
// measures the wall time of the batch against one call alone (made just before) and the
// slowest call in the batch. Reference: the same batch over 8 direct mcp-go clients.
// ns/op is the bridge batch's wall time.
func BenchmarkConcurrentCalls(b *testing.B) {
	const nServers, nCalls, workMS = 8, 64, 50
	h := newHome(b)
	servers := map[string]any{}
	for i := range nServers {
		servers["s"+strconv.Itoa(i)] = h.server("s"+strconv.Itoa(i), "-workers", "16")
	}
	h.writeConfig(servers, "")
	h.refresh()
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	host, _, stderr := h.startHost(ctx)
	directs := make([]*client.Client, nServers)
	for i := range directs {
		directs[i] = h.directClient(ctx, "d"+strconv.Itoa(i), "-workers", "16")
	}
	args := map[string]any{"ms": workMS}
	for i := range nServers { // warm up: start every server
		callOK(ctx, b, host, "w"+strconv.Itoa(i), "mcp__s"+strconv.Itoa(i)+"__slow", map[string]any{"ms": 1})
		directCall(ctx, b, directs[i], "slow", map[string]any{"ms": 1})
	}

	var wall, single, slowest, directWall []float64
	seq := 0
	// batch runs call(0..nCalls-1) concurrently and returns the wall time; errors fail the
	// benchmark once every call has returned.
	batch := func(call func(k int) error) time.Duration {
		var wg sync.WaitGroup
		errs := make([]error, nCalls)
		t0 := time.Now()
		for k := range nCalls {
			wg.Add(1)
			go func() { defer wg.Done(); errs[k] = call(k) }()
		}
		wg.Wait()
		d := time.Since(t0)
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
		return d
	}
	for b.Loop() {
		b.StopTimer()
		t0 := time.Now()
		callOK(ctx, b, host, "one"+strconv.Itoa(seq), "mcp__s0__slow", args)
		single = append(single, ms(time.Since(t0)))
		seq++
		lat := make([]time.Duration, nCalls)
		base := seq
		seq += nCalls
		b.StartTimer()
		w := batch(func(k int) error {
			t := time.Now()
			_, err := callErr(ctx, host, "c"+strconv.Itoa(base+k), "mcp__s"+strconv.Itoa(k%nServers)+"__slow", args)
			lat[k] = time.Since(t)
			return err
		})
		b.StopTimer()
		wall = append(wall, ms(w))
		slowest = append(slowest, ms(slices.Max(lat)))
		dw := batch(func(k int) error { return directErr(ctx, directs[k%nServers], "slow", args) })
		directWall = append(directWall, ms(dw))
		b.StartTimer()
	}
	b.StopTimer()
	for _, d := range directs {
		_ = d.Close()
	}
	h.stopHost(ctx, host, stderr)

	w, s := quantile(wall, 0.5), quantile(single, 0.5)
	b.ReportMetric(w, "wall-ms")
	b.ReportMetric(s, "single-ms")
	b.ReportMetric(quantile(slowest, 0.5), "slowest-ms")
	b.ReportMetric(quantile(directWall, 0.5), "direct-wall-ms")
	b.ReportMetric(w/s, "wall/single")
}

// ---------------------------------------------------------------------------------------
// Search: latency, index build and quality (in-process, public search API)

// catalogDocs turns the catalog into search docs the way the bridge does on its first
// search (registered name, params extracted from each cached schema).
func catalogDocs(cat []catServer) []search.Doc {
	var docs []search.Doc
	for _, s := range cat {
		for _, t := range s.Tools {
			docs = append(docs, toolDoc(s.Name, &t))
		}
	}
	return docs
}

func toolDoc(server string, t *cache.Tool) search.Doc {
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	return search.Doc{ID: catalog.Prefix + catalog.Sanitize(server) + "__" + catalog.Sanitize(t.Name), Server: server, Tool: t.Name,
		Title: title, Description: t.Description, Params: search.ParamsFromSchema(t.InputSchema)}
}

// replicated returns n (server, tool) pairs: the catalog repeated under suffixed server names.
func replicated(cat []catServer, n int) (servers []string, tools []*cache.Tool) {
	for round := 0; len(tools) < n; round++ {
		for _, s := range cat {
			name := s.Name
			if round > 0 {
				name += "-" + strconv.Itoa(round+1)
			}
			for i := range s.Tools {
				if len(tools) == n {
					return servers, tools
				}
				servers = append(servers, name)
				tools = append(tools, &s.Tools[i])
			}
		}
	}
	return servers, tools
}

func benchQuerySet(b *testing.B, file string) []search.Query {
	b.Helper()
	qs, err := search.LoadQueries(filepath.Join("search", "testdata", file))
	if err != nil {
		b.Fatal(err)
	}
	return qs
}

// BenchmarkSearch measures one query (the query set's task phrasings in turn) against
// N tools: ours (index built beforehand) versus the reference's substring scan (Baseline).
// Target: ours ≤ 1 ms per query at 10,000 tools.
func BenchmarkSearch(b *testing.B) {
	cat := benchCatalog(b)
	queries := benchQuerySet(b, "tuning.json")
	for _, n := range []int{1000, 10000} {
		servers, tools := replicated(cat, n)
		docs := make([]search.Doc, n)
		for i := range docs {
			docs[i] = toolDoc(servers[i], tools[i])
		}
		ix := search.New(docs)
		b.Run(fmt.Sprintf("tools=%d/impl=ours", n), func(b *testing.B) {
			i := 0
			lat := make([]time.Duration, 0, 1<<16)
			for b.Loop() {
				t0 := time.Now()
				ix.Search(queries[i%len(queries)].Q, search.DefaultLimit)
				if len(lat) < cap(lat) {
					lat = append(lat, time.Since(t0))
				}
				i++
			}
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)*99/100])/1e3, "p99-us")
			}
		})
		b.Run(fmt.Sprintf("tools=%d/impl=baseline", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				search.Baseline(docs, queries[i%len(queries)].Q, search.DefaultLimit)
				i++
			}
		})
	}
}

// BenchmarkIndexBuild measures what the bridge's first search pays before answering at
// N tools: turning cached tools into docs (parameter names and descriptions read from
// each schema) and building the index. The reference (Baseline) builds nothing; compare
// with one Baseline query in BenchmarkSearch.
func BenchmarkIndexBuild(b *testing.B) {
	cat := benchCatalog(b)
	for _, n := range []int{1000, 10000} {
		servers, tools := replicated(cat, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				docs := make([]search.Doc, n)
				for i := range docs {
					docs[i] = toolDoc(servers[i], tools[i])
				}
				search.New(docs)
			}
		})
	}
}

// BenchmarkSearchQuality evaluates ranking quality over the catalog (664 tools) on the
// two halves of the labelled queries (search/testdata): tuning.json, which the
// ranker was tuned on, and report.json, which it never was; overall (kind=all) and per
// query kind: recall@1, recall@5 and MRR@10 for ours and for Baseline. ns/op is one pass
// of ours over the queries.
func BenchmarkSearchQuality(b *testing.B) {
	cat := benchCatalog(b)
	docs := catalogDocs(cat)
	ix := search.New(docs)
	base := func(q string, limit int) []search.Hit { return search.Baseline(docs, q, limit) }
	for _, set := range []struct{ name, file string }{{"tuning", "tuning.json"}, {"report", "report.json"}} {
		all := benchQuerySet(b, set.file)
		for _, kind := range append([]string{"all"}, search.Kinds...) {
			queries := all
			if kind != "all" {
				queries = slices.DeleteFunc(slices.Clone(all), func(q search.Query) bool { return q.Kind != kind })
			}
			if len(queries) == 0 {
				continue
			}
			b.Run("set="+set.name+"/kind="+kind, func(b *testing.B) {
				benchQuality(b, ix, docs, base, queries)
			})
		}
	}
}

// benchQuality reports ours and Baseline over one group of queries.
func benchQuality(b *testing.B, ix *search.Index, docs []search.Doc, base func(string, int) []search.Hit, queries []search.Query) {
	var ours search.Metrics
	for b.Loop() {
		ours = search.Evaluate(ix.Search, docs, queries)
	}
	ref := search.Evaluate(base, docs, queries)
	b.ReportMetric(ours.Recall1, "recall@1")
	b.ReportMetric(ours.Recall5, "recall@5")
	b.ReportMetric(ours.MRR, "MRR")
	b.ReportMetric(ref.Recall1, "base-recall@1")
	b.ReportMetric(ref.Recall5, "base-recall@5")
	b.ReportMetric(ref.MRR, "base-MRR")
	b.ReportMetric(float64(len(queries)), "queries")
}

// ---------------------------------------------------------------------------------------
// Startup in-process (for profiling the startup path with -cpuprofile)

// BenchmarkStartupInProcess is hello_ack → ready for 50 servers and 2,000 cached tools
// with the bridge and the extension protocol in the benchmark's own process, over os.Pipe
// pairs, so that `-cpuprofile` and `-memprofile` see the startup path (the binary-level
// BenchmarkStartup is what BENCHMARKS.md reports). The pipe floor is measured beside it
// as in BenchmarkStartup.
func BenchmarkStartupInProcess(b *testing.B) {
	cat := benchCatalog(b)
	h := newHome(b)
	names, tools := layout(cat, 50, 2000)
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = h.server(n)
	}
	h.writeConfig(servers, "")
	h.fillCache(tools)
	ack, err := json.Marshal(map[string]any{"type": "hello_ack", "protocol_version": 1, "capabilities": []string{"call_tool"},
		"zot_version": "0.0.0", "provider": "bench", "model": "bench", "cwd": h.project, "data_dir": h.dir})
	if err != nil {
		b.Fatal(err)
	}
	ack = append(ack, '\n')
	// One start writes the startup file after ready; later starts register from it.
	h.startInProcess(ack, true)
	waitForFile(b, cache.FramesPath(cache.DefaultPath(h.dir)))
	sent := h.startInProcess(ack, true)

	var lat, floor []float64
	for b.Loop() {
		lat = append(lat, ms(time.Duration(h.startInProcessRun(ack, false).d)))
		floor = append(floor, pipeFloor(b, sent))
	}
	b.ReportMetric(quantile(lat, 0.5), "ms/ready")
	b.ReportMetric(quantile(floor, 0.5), "ms/pipe-floor")
	b.ReportMetric(quantile(lat, 0.5)/quantile(floor, 0.5), "ready/pipe-floor")
}

// startInProcess runs one in-process start; with keep it returns what was written from
// hello_ack to ready.
func (h *home) startInProcess(ack []byte, keep bool) []byte {
	return h.startInProcessRun(ack, keep).sent
}

// inProcessStart is one in-process start: hello_ack → ready in ns and, if kept, the bytes.
type inProcessStart struct {
	d    float64
	sent []byte
}

// startInProcessRun runs the bridge in-process over pipes from hello to shutdown.
func (h *home) startInProcessRun(ack []byte, keep bool) inProcessStart {
	b := h.b
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	br := bridge.New(bridge.Options{ZotHome: h.dir, Version: "bench", StartupGC: true})
	done := make(chan error, 1)
	go func() {
		done <- extension.Run(ctx, inR, outW, br, extension.Options{Name: bridge.ExtensionName, Version: "bench"})
	}()
	r := &rawBridge{out: bufio.NewReaderSize(outR, 1<<20)}
	if head, _, err := r.line(); err != nil || !bytes.HasPrefix(head, []byte(`{"type":"hello"`)) {
		b.Fatalf("first line %q, %v; want hello", head, err)
	}
	var res inProcessStart
	t0 := time.Now()
	if _, err := inW.Write(ack); err != nil {
		b.Fatal(err)
	}
	if keep {
		res.sent, err = r.capture(`{"type":"ready"}`)
	} else {
		_, _, err = r.until(`{"type":"ready"}`)
	}
	res.d = float64(time.Since(t0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.WriteString(inW, `{"type":"shutdown"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	br.Close(ctx)
	_ = outW.Close()
	_ = inW.Close()
	_ = inR.Close()
	return res
}
