package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// outsideRun is what testkit/bench/hostsim/hostsim.py prints: per way (bridge, relay, direct,
// nullext, lone, and the forwarder as its base way) its percentiles, and for the processes in
// the middle their CPU, context switches and migrations per call.
type outsideRun struct {
	Ways map[string]struct {
		Calls      int     `json:"calls"`
		P50        float64 `json:"p50_us"`
		P90        float64 `json:"p90_us"`
		P99        float64 `json:"p99_us"`
		CPUStat    float64 `json:"cpu_stat_us_per_call"`
		CPUSched   float64 `json:"cpu_sched_us_per_call"`
		Switches   float64 `json:"switches_per_call"`
		Migrations float64 `json:"migrations_per_call"`
		MeanMicros float64 `json:"mean_us"`
	} `json:"ways"`
}

// BenchmarkCallOutsideHost times one tool call the way a host not written in Go sees it:
// testkit/bench/hostsim/hostsim.py (Python, standard library only, blocking reads) drives the
// built bridge binary through the zot handshake and tool_call → tool_result, and in the
// same run times five other ways with the same client: the same MCP server directly,
// through testkit/relay, testkit/bench/mcpfloor, testkit/bench/lone and
// testkit/bench/nullext, the six interleaved in blocks of 50 calls, rotating which way goes
// first. Each server is run twice: on both CPUs, where the kernel moves the processes
// between them (migrations per call are reported), and with everything on one CPU
// (server=<name>-one-cpu: hostsim --pin 0), where no wake-up crosses CPUs and the ways
// differ only by the work they do. The Go host of
// BenchmarkCallRoundTrip measures the bridge with exttest and the references with an
// mcp-go client, whose costs are not alike; here all share one client. Reported:
// p50 and p90 of each way, the CPU per call of each process in the middle (schedstat of every
// thread, and the coarse /proc/<pid>/stat in clock ticks), context switches per call, and
// ratios computed within the run (the ways are paired by the interleaving, so benchreport
// shows these rather than a ratio of medians over runs). server=fake is the fake MCP server
// (testkit/fakemcp, echo); server=everything the npm @modelcontextprotocol/server-everything
// (echo), when installed. testkit/bench/mcpfloor, hostsim's base way, is a minimal forwarder
// through mcp-go (reference): what an extension keeping mcp-go does with nothing else; the
// bridge can beat it, so it is no floor. testkit/bench/lone is a translator on one
// goroutine with hand-written frames and nothing else: the least any process that decodes
// and encodes both sides of a call can cost. Without python3 the benchmark is skipped.
// Each iteration is one whole run of the script; run it with -benchtime 1x.
func BenchmarkCallOutsideHost(b *testing.B) {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skipf("python3 is needed for the outside host (testkit/bench/hostsim/hostsim.py), and it is not on PATH: %v", err)
	}
	root, err := testutil.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(root, "testkit", "bench", "hostsim", "hostsim.py")
	cases := []struct {
		name string
		args string
		cmd  func(b *testing.B, marker string) []string
	}{
		{"fake", `{"text":"hello"}`, func(b *testing.B, marker string) []string {
			return []string{testutil.FakeServer(b), "-marker", marker, "-max-lifetime", "10m"}
		}},
		{"everything", `{"message":"hello"}`, func(b *testing.B, _ string) []string {
			return []string{filepath.Join(testutil.NPMBin(b), "mcp-server-everything"), "stdio"}
		}},
	}
	for _, c := range cases {
		for _, pinned := range []bool{false, true} {
			name := "server=" + c.name
			if pinned {
				name += "-one-cpu"
			}
			b.Run(name, func(b *testing.B) { outsideRunBench(b, python, script, c.args, c.cmd, pinned) })
		}
	}
}

// outsideRunBench runs hostsim once per iteration against the server cmd gives and
// reports its figures; pinned puts the host and everything it starts on CPU 0.
func outsideRunBench(b *testing.B, python, script, callArgs string, server func(b *testing.B, marker string) []string, pinned bool) {
	bin := os.Getenv("MCP_BRIDGE_BENCH_BIN")
	if bin == "" {
		bin = testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge")
	}
	relay := testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge/testkit/relay")
	nullext := testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge/testkit/bench/nullext")
	floor := testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge/testkit/bench/mcpfloor")
	lone := testutil.BuildBinary(b, "github.com/zot-mcp/mcp-bridge/testkit/bench/lone")
	marker := testutil.NewMarker(b)
	b.Cleanup(func() { testutil.KillProcsWithMarker(marker) })
	srv := server(b, marker)
	argv, _ := json.Marshal(srv)
	ctx, cancel := context.WithTimeout(context.Background(), benchGuard)
	defer cancel()
	var run outsideRun
	for b.Loop() {
		args := []string{script, "--bridge", bin, "--relay", relay, "--nullext", nullext, "--lone", lone,
			"--base", floor, "--base-env", "MCP_FLOOR_SERVER=" + string(argv), "--tool", "echo", "--args", callArgs,
			"--block", "50", "--blocks", "20", "--warmup", "2000"}
		if pinned {
			args = append(args, "--pin", "0")
		}
		cmd := exec.CommandContext(ctx, python, append(append(args, "--"), srv...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("hostsim: %v\n%s", err, stderr.String())
		}
		run = outsideRun{}
		if err := json.Unmarshal(out, &run); err != nil {
			b.Fatalf("hostsim printed no result: %v\n%s", err, out)
		}
	}
	b.StopTimer()
	run.Ways["floor"] = run.Ways["base"] // hostsim's other extension way: the forwarder
	for _, w := range []string{"bridge", "relay", "direct", "nullext", "floor", "lone"} {
		r, ok := run.Ways[w]
		if !ok || r.Calls == 0 {
			b.Fatalf("hostsim timed no %s calls", w)
		}
		b.ReportMetric(r.P50, w+"-p50-us")
		b.ReportMetric(r.P90, w+"-p90-us")
		b.ReportMetric(r.P99, w+"-p99-us")
		if w != "direct" {
			b.ReportMetric(r.CPUSched, w+"-cpu-us/call")
			b.ReportMetric(r.CPUStat, w+"-stat-cpu-us/call")
			b.ReportMetric(r.Switches, w+"-switches/call")
			b.ReportMetric(r.Migrations, w+"-migrations/call")
		}
	}
	br, rl, d, fl, ln := run.Ways["bridge"], run.Ways["relay"], run.Ways["direct"], run.Ways["floor"], run.Ways["lone"]
	b.ReportMetric(fl.P50/rl.P50, "floor-relay-p50-ratio")
	b.ReportMetric(br.P50/fl.P50, "bridge-floor-p50-ratio")
	b.ReportMetric(ln.P50/rl.P50, "lone-relay-p50-ratio")
	b.ReportMetric(br.P50/ln.P50, "bridge-lone-p50-ratio")
	b.ReportMetric(br.P50/rl.P50, "bridge-relay-p50-ratio")
	b.ReportMetric(br.P50/d.P50, "bridge-direct-p50-ratio")
	b.ReportMetric(br.P90/rl.P90, "bridge-relay-p90-ratio")
	b.ReportMetric(rl.P50/d.P50, "relay-direct-p50-ratio")
	b.ReportMetric(br.P50-rl.P50, "bridge-relay-p50-diff-us")
}
