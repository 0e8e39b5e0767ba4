#!/usr/bin/env python3
"""A zot host simulator that is not written in Go, for timing one tool call from outside.

It drives the built mcp-bridge binary the way zot does (hello -> hello_ack ->
registrations -> ready, then tool_call -> tool_result over NDJSON on the child's stdin
and stdout) and, in the same run, calls the same MCP server directly (newline-delimited
JSON-RPC over its stdin and stdout) and through testkit/relay (a process that passes
the bytes on unchanged), and with --base, --lone and --nullext three more extensions: six
ways, interleaved in blocks, rotating which goes first, so each sees the same machine state.
Python 3 standard library only.

    hostsim.py --bridge BIN --relay BIN [--tool echo --args '{"message":"hi"}'] -- SERVER [ARGS...]

It prints one JSON object on stdout: per way, p50/p90/p99 in microseconds and the calls
made; per process in the middle (bridge, relay, nullext), CPU time per call from
/proc/<pid>/stat (utime+stime, clock ticks: coarse) and from the threads' schedstat
(nanoseconds), and context switches per call. --base BIN times another extension as a way
(base): another bridge build (A/B on the same machine state) or testkit/bench/mcpfloor, a
minimal forwarder through mcp-go (reference), which is told the tool in MCP_FLOOR_TOOL;
--nullext BIN times an extension that answers at once (testkit/bench/nullext), the zot side
of a call alone; --lone BIN times testkit/bench/lone, a translator on one goroutine with
no extension package, no mcp-go and no bookkeeping, the least a process that decodes and
encodes both sides can do (it is given the --base-env variables too). Per process it also
counts the threads' migrations between CPUs per call (se.nr_migrations, where the kernel
has it). --pin CPU runs this host and everything it starts on that one CPU, so no wake-up
crosses CPUs and the ways differ only by the work they do.

Why a second host: the repository's Go benchmark times the bridge through one Go client
(exttest) and the direct and relay references through another (mcp-go's stdio client), both
in the test process on the same cores; each costs more per call than the gap being measured,
and the two costs differ. Here one client, blocking in read(2) as most hosts not written in Go
do, serves every way alike.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

GUARD_S = 60.0  # a hang guard for one read, never a measurement


class LineConn:
    """One child process spoken to in newline-delimited JSON over its stdin and stdout."""

    def __init__(self, argv, env=None, cwd=None, stderr=None):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            env=env, cwd=cwd, bufsize=0)
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self.buf = bytearray()

    def send(self, obj):
        data = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        while view:
            n = os.write(self.wfd, view)
            view = view[n:]

    def line(self):
        """The next line, without its newline; blocks in read(2)."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                out = bytes(self.buf[:i])
                del self.buf[:i + 1]
                return out
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise EOFError("%s closed its stdout" % self.proc.args[0])
            self.buf += chunk

    def frame(self):
        return json.loads(self.line())

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class MCPClient:
    """A minimal MCP client over stdio: initialize, then tools/call."""

    def __init__(self, argv, protocol):
        self.conn = LineConn(argv, stderr=subprocess.DEVNULL)
        self.next_id = 0
        r = self.request("initialize", {
            "protocolVersion": protocol, "capabilities": {},
            "clientInfo": {"name": "hostsim-direct", "version": "0"}})
        if "error" in r:
            raise RuntimeError("initialize: %s" % r["error"])
        self.conn.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.conn.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.conn.frame()
            if m.get("id") == rid and "method" not in m:
                return m
            if "method" in m and "id" in m:  # a request from the server: refuse it
                self.conn.send({"jsonrpc": "2.0", "id": m["id"],
                                "error": {"code": -32601, "message": "not supported"}})

    def call(self, tool, args):
        r = self.request("tools/call", {"name": tool, "arguments": args})
        if "error" in r or r.get("result", {}).get("isError"):
            raise RuntimeError("direct %s: %s" % (tool, r))

    def close(self):
        self.conn.close()


class Bridge:
    """The mcp-bridge binary under this host: handshake, then tool calls."""

    def __init__(self, binary, home, project, stderr, extra_env=()):
        env = dict(os.environ, ZOT_HOME=home)
        env.update(kv.split("=", 1) for kv in extra_env)
        self.conn = LineConn([binary], env=env, cwd=os.path.dirname(binary), stderr=stderr)
        hello = self.conn.frame()
        if hello.get("type") != "hello":
            raise RuntimeError("first frame is not hello: %r" % hello)
        self.conn.send({"type": "hello_ack", "protocol_version": 1, "capabilities": ["call_tool"],
                        "zot_version": "0.0.0", "provider": "hostsim", "model": "hostsim",
                        "cwd": project, "extension_dir": os.path.dirname(binary),
                        "data_dir": os.path.dirname(binary)})
        self.tools = []
        while True:
            f = self.conn.frame()
            if f.get("type") == "register_tool":
                self.tools.append(f["name"])
            if f.get("type") == "ready":
                break
        self.n = 0

    def call(self, tool, args):
        self.n += 1
        cid = "h%d" % self.n
        self.conn.send({"type": "tool_call", "id": cid, "name": tool, "args": args})
        while True:
            f = self.conn.frame()
            if f.get("type") == "tool_result" and f.get("id") == cid:
                if f.get("is_error"):
                    raise RuntimeError("bridge %s: %s" % (tool, f.get("content")))
                return

    def close(self):
        try:
            self.conn.send({"type": "shutdown"})
            while self.conn.frame().get("type") != "shutdown_ack":
                pass
        except (EOFError, OSError, ValueError):
            pass
        self.conn.close()


def proc_cpu(pid):
    """CPU of pid: (ticks of utime+stime from /proc/<pid>/stat, ns summed over threads'
    schedstat, context switches summed over threads)."""
    with open("/proc/%d/stat" % pid) as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    ns, switches, migrations = 0, 0, 0
    task_dir = "/proc/%d/task" % pid
    for t in os.listdir(task_dir):
        try:
            with open("%s/%s/schedstat" % (task_dir, t)) as f:
                ns += int(f.read().split()[0])
            with open("%s/%s/status" % (task_dir, t)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        switches += int(line.split(":")[1])
            migrations += thread_migrations("%s/%s/sched" % (task_dir, t))
        except FileNotFoundError:
            continue  # the thread ended
    return ticks, ns, switches, migrations


def thread_migrations(path):
    """How often the kernel moved one thread to another CPU (0 where it does not say)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("se.nr_migrations"):
                    return int(line.split(":")[1])
    except (FileNotFoundError, PermissionError, ValueError):
        pass
    return 0


def quantile(xs, q):
    s = sorted(xs)
    if not s:
        return float("nan")
    i = min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))
    return s[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bridge", required=True, help="the mcp-bridge binary")
    ap.add_argument("--relay", required=True, help="the testkit/relay binary")
    ap.add_argument("--base", help="another extension (a bridge build, or testkit/bench/mcpfloor: a minimal forwarder "
                    "through mcp-go, reference), timed as a way (base)")
    ap.add_argument("--nullext", help="an extension answering every call at once (testkit/bench/nullext), timed as a way (nullext)")
    ap.add_argument("--lone", help="a translator on one goroutine (testkit/bench/lone), timed as a way (lone); given the --base-env variables")
    ap.add_argument("--pin", type=int, metavar="CPU", help="run this host and every process it starts on this one CPU")
    ap.add_argument("--bridge-env", action="append", default=[], metavar="K=V",
                    help="an environment variable for the bridge (repeatable)")
    ap.add_argument("--base-env", action="append", default=[], metavar="K=V",
                    help="an environment variable for the base way (repeatable); MCP_FLOOR_TOOL is --tool unless given")
    ap.add_argument("--tool", default="echo", help="the server's tool to call")
    ap.add_argument("--args", default='{"message":"hello"}', help="its arguments (JSON)")
    ap.add_argument("--protocol", default="2025-11-25", help="the direct client's protocol version")
    ap.add_argument("--block", type=int, default=50, help="calls per block")
    ap.add_argument("--blocks", type=int, default=20, help="blocks per way")
    ap.add_argument("--warmup", type=int, default=50, help="calls per way before timing")
    ap.add_argument("--ways", default="bridge,relay,direct", help="which ways to time, comma-separated")
    ap.add_argument("--keep", action="store_true", help="keep the temporary zot home")
    ap.add_argument("--raw", help="write every call's time (µs) per way to this JSON file")
    ap.add_argument("server", nargs="+", help="the MCP server's command and arguments (after --)")
    o = ap.parse_args()
    args = json.loads(o.args)
    ways = o.ways.split(",")
    if o.base and "base" not in ways:
        ways.append("base")
    if o.nullext and "nullext" not in ways:
        ways.append("nullext")
    if o.lone and "lone" not in ways:
        ways.append("lone")
    if o.pin is not None:
        os.sched_setaffinity(0, {o.pin})  # inherited by every child started below

    home = tempfile.mkdtemp(prefix="hostsim-home-")
    project = tempfile.mkdtemp(prefix="hostsim-project-")
    stderr_path = os.path.join(home, "bridge-stderr.log")
    stderr = open(stderr_path, "wb")
    clients = {}
    try:
        with open(os.path.join(home, "mcp.json"), "w") as f:
            json.dump({"mcpServers": {"srv": {"command": o.server[0], "args": o.server[1:],
                                              "connectTimeout": 60}}}, f)
        env = dict(os.environ, ZOT_HOME=home)
        # Fill the tool cache as a user does, so the bridge registers the server's tools.
        subprocess.run([o.bridge, "refresh"], env=env, cwd=project, check=True,
                       stdout=subprocess.DEVNULL, stderr=stderr)

        callers = {}
        pids = {}
        name = "mcp__srv__" + o.tool
        # mcpfloor forwards the tool MCP_FLOOR_TOOL names; a bridge build ignores it.
        base_env = ["MCP_FLOOR_TOOL=" + o.tool] + o.base_env
        for w, binary, extra in (("bridge", o.bridge, o.bridge_env), ("base", o.base, base_env),
                                 ("nullext", o.nullext, ()), ("lone", o.lone, base_env)):
            if w not in ways:
                continue
            br = Bridge(binary, home, project, stderr, extra)
            clients[w] = br
            if name not in br.tools:
                raise RuntimeError("the %s registered no %s (it has %s)" % (w, name, br.tools[:10]))
            callers[w] = (lambda b: lambda: b.call(name, args))(br)
            pids[w] = br.conn.proc.pid
        if "relay" in ways:
            rc = MCPClient([o.relay] + o.server, o.protocol)
            clients["relay"] = rc
            callers["relay"] = lambda: rc.call(o.tool, args)
            pids["relay"] = rc.conn.proc.pid
        if "direct" in ways:
            dc = MCPClient(o.server, o.protocol)
            clients["direct"] = dc
            callers["direct"] = lambda: dc.call(o.tool, args)

        for _ in range(o.warmup):  # the bridge's first call starts the server
            for w in ways:
                callers[w]()

        prof = os.environ.get("MCP_BRIDGE_BENCHPROF")  # a build with -tags benchprof profiles the loop
        if prof and "bridge" in pids:
            started = "%s.%d.started" % (prof, pids["bridge"])
            os.kill(pids["bridge"], signal.SIGUSR1)
            deadline = time.monotonic() + GUARD_S
            while not os.path.exists(started):
                if time.monotonic() > deadline:
                    raise RuntimeError("the bridge did not start profiling (built with -tags benchprof?)")
                time.sleep(0.01)
        times = {w: [] for w in ways}
        cpu = {w: {"ticks": 0, "ns": 0, "switches": 0, "migrations": 0} for w in pids}
        clock = time.perf_counter_ns
        t_start = time.monotonic()
        for b in range(o.blocks):
            for k in range(len(ways)):
                w = ways[(b + k) % len(ways)]
                call = callers[w]
                pid = pids.get(w)
                before = proc_cpu(pid) if pid else None
                xs = times[w]
                for _ in range(o.block):
                    t0 = clock()
                    call()
                    xs.append((clock() - t0) / 1000.0)
                if pid:
                    after = proc_cpu(pid)
                    c = cpu[w]
                    c["ticks"] += after[0] - before[0]
                    c["ns"] += after[1] - before[1]
                    c["switches"] += after[2] - before[2]
                    c["migrations"] += after[3] - before[3]
            if time.monotonic() - t_start > 10 * GUARD_S:
                raise RuntimeError("the run took longer than its guard")
        if prof and "bridge" in pids:
            os.kill(pids["bridge"], signal.SIGUSR2)
        tick = os.sysconf("SC_CLK_TCK")
        out = {"tool": o.tool, "block": o.block, "blocks": o.blocks, "ways": {}}
        for w in ways:
            xs = times[w]
            r = {"calls": len(xs), "p50_us": quantile(xs, 0.5), "p90_us": quantile(xs, 0.9),
                 "p99_us": quantile(xs, 0.99), "mean_us": sum(xs) / len(xs)}
            if w in cpu:
                c = cpu[w]
                r["cpu_stat_us_per_call"] = c["ticks"] * 1e6 / tick / len(xs)
                r["cpu_sched_us_per_call"] = c["ns"] / 1000.0 / len(xs)
                r["switches_per_call"] = c["switches"] / len(xs)
                r["migrations_per_call"] = c["migrations"] / len(xs)
            out["ways"][w] = r
        ws = out["ways"]
        if "bridge" in ws and "relay" in ws:
            out["bridge_relay_p50_ratio"] = ws["bridge"]["p50_us"] / ws["relay"]["p50_us"]
            out["bridge_relay_p90_ratio"] = ws["bridge"]["p90_us"] / ws["relay"]["p90_us"]
        if "bridge" in ws and "base" in ws:
            out["bridge_base_p50_ratio"] = ws["bridge"]["p50_us"] / ws["base"]["p50_us"]
        if "lone" in ws and "relay" in ws:
            out["lone_relay_p50_ratio"] = ws["lone"]["p50_us"] / ws["relay"]["p50_us"]
        if "bridge" in ws and "lone" in ws:
            out["bridge_lone_p50_ratio"] = ws["bridge"]["p50_us"] / ws["lone"]["p50_us"]
        if "nullext" in ws and "relay" in ws:
            out["nullext_relay_p50_ratio"] = ws["nullext"]["p50_us"] / ws["relay"]["p50_us"]
        if "relay" in ws and "direct" in ws:
            out["relay_direct_p50_ratio"] = ws["relay"]["p50_us"] / ws["direct"]["p50_us"]
        if o.raw:
            with open(o.raw, "w") as f:
                json.dump(times, f)
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    finally:
        for c in clients.values():
            try:
                c.close()
            except Exception as e:  # keep closing the others
                print("hostsim: close: %s" % e, file=sys.stderr)
        stderr.close()
        if o.keep:
            print("hostsim: zot home kept at %s" % home, file=sys.stderr)
        else:
            shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
