package main

import "fmt"

// bOutside is BenchmarkCallOutsideHost: the call timed by testkit/bench/hostsim/hostsim.py.
const bOutside = "BenchmarkCallOutsideHost/server=%s"

// outsideSection is the call measured from a host not written in Go, beside the Go host's
// figure for the same call.
func outsideSection() section {
	s := section{
		title: "Calls from a host not written in Go",
		intro: "`testkit/bench/hostsim/hostsim.py` (Python 3, standard library only, blocking reads, as most hosts not written in Go are) drives the " +
			"built bridge through the zot handshake and `tool_call` → `tool_result`, and in the same run times four other ways with the same client: " +
			"the same MCP server called directly, through `testkit/relay` (a process that only moves bytes: the relay floor), through " +
			"`testkit/bench/mcpfloor`, and `testkit/bench/nullext`. The five ways are interleaved in blocks of 50 calls, rotating which goes first, after " +
			"2,000 warm-up calls each (a node server's JIT is warm by then). `fake` is the fake MCP server's `echo`, `everything` the npm " +
			"server-everything's `echo`. `testkit/bench/mcpfloor` is a minimal forwarder through mcp-go (reference): the bridge's extension package on one side, mcp-go's stdio transport on the other, one pre-encoded `tools/call` and a decode of the result's text between; it is a reference, not a floor (the bridge can beat it). `testkit/bench/nullext` is an extension on the bridge's own extension package that answers every `tool_call` at once, with no server behind it (the zot side of a call alone). " +
			"Ratios marked \"per run\" are computed within each run, where the ways were timed interleaved, and their median over the runs is shown; " +
			"the medians of the two figures beside them are context. CPU per call is the sum of the process's threads' schedstat over the timed calls; the `/proc/<pid>/stat` " +
			"figure beside it is coarse (10 ms ticks over the timed calls). The Go host of the section above measures the bridge with `exttest` and the references with an " +
			"mcp-go client; here one client serves all five ways.",
	}
	for _, srv := range []string{"everything", "fake"} {
		b := fmt.Sprintf(bOutside, srv)
		head := srv + ": bridge p50 against the relay floor"
		if srv == "everything" {
			head = "**" + head + "**"
		}
		s.rows = append(s.rows,
			row{figure: head, ours: m(b, "bridge-p50-us", 1, "µs", 0), ref: m(b, "relay-p50-us", 1, "µs relay", 0),
				perRun: m(b, "bridge-relay-p50-ratio", 1, "", 2), target: "≤ 1.10×", met: ratioLE(1.10)},
			row{figure: srv + ": bridge p90 against the relay floor", ours: m(b, "bridge-p90-us", 1, "µs", 0),
				ref: m(b, "relay-p90-us", 1, "µs relay", 0), perRun: m(b, "bridge-relay-p90-ratio", 1, "", 2)},
			row{figure: srv + ": bridge p50 against the direct client", ours: m(b, "bridge-p50-us", 1, "µs", 0),
				ref: m(b, "direct-p50-us", 1, "µs direct", 0), perRun: m(b, "bridge-direct-p50-ratio", 1, "", 2)},
			row{figure: srv + ": the relay floor against the direct client, p50", ours: m(b, "relay-p50-us", 1, "µs", 0),
				ref: m(b, "direct-p50-us", 1, "µs direct", 0), perRun: m(b, "relay-direct-p50-ratio", 1, "", 2)},
			row{figure: srv + ": time the bridge adds over the relay (p50)", ours: m(b, "bridge-relay-p50-diff-us", 1, "µs", 0), ref: none("—")},
			row{figure: srv + ": CPU time of the bridge process per call", ours: m(b, "bridge-cpu-us/call", 1, "µs", 0),
				ref: m(b, "relay-cpu-us/call", 1, "µs (the relay's)", 0), ratio: "ours/ref", target: "≤ 150 µs", met: le(150)},
			row{figure: srv + ": the same from /proc/<pid>/stat (coarse: 10 ms ticks)", ours: m(b, "bridge-stat-cpu-us/call", 1, "µs", 0),
				ref: m(b, "relay-stat-cpu-us/call", 1, "µs (the relay's)", 0), ratio: "ours/ref"},
			row{figure: srv + ": an extension answering at once (`testkit/bench/nullext`), p50", ours: m(b, "nullext-p50-us", 1, "µs", 0),
				ref: m(b, "relay-p50-us", 1, "µs relay", 0), ratio: "ours/ref"},
			row{figure: srv + ": its CPU time per call", ours: m(b, "nullext-cpu-us/call", 1, "µs", 0),
				ref: m(b, "bridge-cpu-us/call", 1, "µs (the bridge's)", 0), ratio: "ours/ref"},
			row{figure: srv + ": a minimal forwarder through mcp-go (reference, `testkit/bench/mcpfloor`) against the relay floor, p50", ours: m(b, "floor-p50-us", 1, "µs", 0),
				ref: m(b, "relay-p50-us", 1, "µs relay", 0), perRun: m(b, "floor-relay-p50-ratio", 1, "", 2)},
			row{figure: srv + ": the bridge against that forwarder, p50", ours: m(b, "bridge-p50-us", 1, "µs", 0),
				ref: m(b, "floor-p50-us", 1, "µs forwarder", 0), perRun: m(b, "bridge-floor-p50-ratio", 1, "", 2)},
			row{figure: srv + ": thread context switches of the bridge per call", ours: m(b, "bridge-switches/call", 1, "", 1),
				ref: m(b, "relay-switches/call", 1, "(the relay's)", 1), ratio: "ours/ref"},
		)
	}
	goEcho := fmt.Sprintf(bCall, "echo")
	s.rows = append(s.rows,
		row{figure: "fake, bridge/relay p50: the Go host's ratio against this host's", ours: m(goEcho, "bridge-relay-p50-ratio", 1, "× (Go host)", 2),
			ref: m(fmt.Sprintf(bOutside, "fake"), "bridge-relay-p50-ratio", 1, "× (this host)", 2)},
		row{figure: "fake: the direct client's p50, Go host (mcp-go client) against this host's", ours: m(goEcho, "direct-p50-us", 1, "µs (Go host)", 0),
			ref: m(fmt.Sprintf(bOutside, "fake"), "direct-p50-us", 1, "µs (this host)", 0), ratio: "ours/ref"},
	)
	s.limits = func(r results) string {
		e := fmt.Sprintf(bOutside, "everything")
		fk := fmt.Sprintf(bOutside, "fake")
		return fmt.Sprintf("the bridge's own work on one thread: it sleeps as often as the relay (%s against %s context switches per call), but "+
			"spends %s µs of CPU per call where the relay spends %s and an extension answering at once %s (everything), so most of it is on "+
			"the MCP side of the call, not the zot side: decoding the frame, the call's context and budget, encoding "+
			"the JSON-RPC request, mcp-go's read loop decoding the reply twice and its result decoder, converting and encoding the `tool_result`, "+
			"and the scheduler and allocator under all of it. The relay floor is a process that only moves bytes, so the bridge adds %s µs "+
			"(everything) and %s µs (fake) over it at p50. The Go host's direct client (mcp-go's) is %s µs slower at p50 than this host's "+
			"on the same fake server, in different runs, and the Go host's own cost is in its bridge figure, so the two hosts' ratios differ: %s× there, %s× here.",
			f(med(r, e, "bridge-switches/call"), 1), f(med(r, e, "relay-switches/call"), 1),
			f(med(r, e, "bridge-cpu-us/call"), 0), f(med(r, e, "relay-cpu-us/call"), 0), f(med(r, e, "nullext-cpu-us/call"), 0),
			f(med(r, e, "bridge-relay-p50-diff-us"), 0), f(med(r, fk, "bridge-relay-p50-diff-us"), 0),
			f(med(r, fmt.Sprintf(bCall, "echo"), "direct-p50-us")-med(r, fk, "direct-p50-us"), 0),
			f(med(r, fmt.Sprintf(bCall, "echo"), "bridge-relay-p50-ratio"), 2), f(med(r, fk, "bridge-relay-p50-ratio"), 2))
	}
	return s
}
