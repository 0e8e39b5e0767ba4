package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/exttest"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// BenchmarkStressCalls hunts lost replies: it makes MCP_BRIDGE_STRESS_CALLS echo calls
// through the bridge binary from MCP_BRIDGE_STRESS_INFLIGHT callers (default 1), each
// call with a deadline of MCP_BRIDGE_STRESS_DEADLINE (default 2s). A call past its
// deadline gets ten more seconds to show it was only slow; if it is still unanswered, or
// an answer is an error or not the call's own text, the driver writes its own goroutines and the bridge's (SIGQUIT, GOTRACEBACK=all) to
// MCP_BRIDGE_STRESS_DIR and fails. MCP_BRIDGE_STRESS_ENV adds space-separated VAR=value
// pairs to the bridge's environment (GOGC=5 GOMAXPROCS=1). Skipped unless
// MCP_BRIDGE_STRESS_CALLS is set; it is a hunt, not a measurement.
func BenchmarkStressCalls(b *testing.B) {
	total, _ := strconv.Atoi(os.Getenv("MCP_BRIDGE_STRESS_CALLS"))
	if total <= 0 {
		b.Skip("set MCP_BRIDGE_STRESS_CALLS to hunt for lost replies")
	}
	inflight := envInt(b, "MCP_BRIDGE_STRESS_INFLIGHT", 1)
	deadline := 2 * time.Second
	if s := os.Getenv("MCP_BRIDGE_STRESS_DEADLINE"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatalf("MCP_BRIDGE_STRESS_DEADLINE: %v", err)
		}
		deadline = d
	}
	dir := os.Getenv("MCP_BRIDGE_STRESS_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	h := newHome(b)
	h.writeConfig(map[string]any{"fake": h.server("fake")}, "")
	h.refresh()
	h.env = append(h.env, "GOTRACEBACK=all")
	h.env = append(h.env, strings.Fields(os.Getenv("MCP_BRIDGE_STRESS_ENV"))...)

	ctx, cancel := context.WithTimeout(context.Background(), 24*time.Hour)
	defer cancel()
	stderrPath := filepath.Join(dir, fmt.Sprintf("bridge-%d.stderr", time.Now().UnixNano()))
	errFile, err := os.Create(stderrPath)
	if err != nil {
		b.Fatal(err)
	}
	defer errFile.Close()
	cmd := exec.Command(h.bin)
	cmd.Env = h.env
	cmd.Dir = filepath.Dir(h.bin)
	cmd.Stderr = errFile
	host := exttest.StartProcess(b, cmd)
	host.ExpectHello(ctx)
	host.Handshake(ctx, h.ack())

	// call makes one call; late says it was answered only after its deadline.
	call := func(id string) (late bool, err error) {
		text := "echo:" + id + ":" // unique, so an answer given to the wrong call shows
		if err := host.SendToolCall(id, "mcp__fake__echo", map[string]any{"text": text}); err != nil {
			return false, err
		}
		cctx, ccancel := context.WithTimeout(ctx, deadline)
		r, err := host.WaitToolResult(cctx, id)
		ccancel()
		if err != nil {
			lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
			defer lcancel()
			if r, err = host.WaitToolResult(lctx, id); err != nil {
				return false, fmt.Errorf("call %s unanswered after %v: %w", id, deadline+10*time.Second, err)
			}
			late = true
		}
		if r.IsError || !strings.Contains(r.Text(), text) {
			return late, fmt.Errorf("call %s: wrong answer (error result %v): %.300s", id, r.IsError, r.Text())
		}
		return late, nil
	}
	var next, done, slow atomic.Int64
	var failOnce sync.Once
	var failure error
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range inflight {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(total); i = next.Add(1) {
				select {
				case <-stop:
					return
				default:
				}
				late, err := call(strconv.Itoa(w) + "-" + strconv.FormatInt(i, 10))
				if err != nil {
					failOnce.Do(func() {
						failure = err
						close(stop)
						stressDump(ctx, b, dir, host, cmd, err)
					})
					return
				}
				if late {
					slow.Add(1)
				}
				if d := done.Add(1); d%100000 == 0 {
					fmt.Fprintf(os.Stderr, "stress: %d calls\n", d)
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(done.Load()), "calls")
	b.ReportMetric(float64(slow.Load()), "slow-calls")
	if failure != nil {
		b.Fatalf("after %d calls: %v (evidence in %s, bridge stderr %s)", done.Load(), failure, dir, stderrPath)
	}
	h.stopHost(ctx, host, &capped{})
	_ = os.Remove(stderrPath)
}

// stressDump keeps the evidence of a hang: the driver's goroutines, the kernel's view of
// every thread of the bridge and its children, then the bridge's goroutines (SIGQUIT).
func stressDump(ctx context.Context, b *testing.B, dir string, host *exttest.Host, cmd *exec.Cmd, why error) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	var s strings.Builder
	fmt.Fprintf(&s, "%v\n\n", why)
	s.WriteString(testutil.Stacks())
	_ = os.WriteFile(filepath.Join(dir, "driver-"+stamp+".stacks"), []byte(s.String()), 0o600)
	out, _ := exec.Command("sh", "-c", `tree() { echo $1; for c in $(pgrep -P $1); do tree $c; done; }
for p in $(tree `+strconv.Itoa(cmd.Process.Pid)+`); do
  echo "== pid $p: $(tr '\0' ' ' </proc/$p/cmdline)"
  for t in /proc/$p/task/*; do echo "$t $(cat $t/wchan) $(cut -d' ' -f3 $t/stat)"; done
  for f in /proc/$p/fd/*; do echo "$f -> $(readlink $f)"; done
done`).CombinedOutput()
	_ = os.WriteFile(filepath.Join(dir, "procs-"+stamp+".txt"), out, 0o600)
	_ = cmd.Process.Signal(syscall.SIGQUIT)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = host.Wait(wctx) // the bridge writes its dump to stderr and exits
	b.Logf("hang evidence in %s (stamp %s)", dir, stamp)
}

// envInt reads a positive integer from the environment, def when unset.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}
