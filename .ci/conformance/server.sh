#!/usr/bin/env bash
# Runs the official MCP conformance suite's SERVER scenarios against `mcp-bridge serve`:
# for each wire version the suite has a requirement set for, against a backend directly and
# then through `mcp-bridge serve --http --tools all --prefix none` in front of that backend,
# and fails if a scenario that passes directly does not pass through serve.
#
#   MCP_BRIDGE=/path/to/mcp-bridge .ci/conformance/server.sh OUTDIR
#
# The backend is mcp-go's own conformance server (github.com/mark3labs/mcp-go/examples/
# conformance, in our module graph, so `go build` works offline from the module cache), or
# the binary CONFORMANCE_BACKEND names; it listens on $CONFORMANCE_ADDR. Each wire gets a
# backend of its own and a serve run of its own, whose mcp.json pins the backend's
# "protocolVersion" to that wire: a bridge speaks one era to each backend, and the backend's
# elicitation and sampling tools ask their questions the 2025-11-25 way only, so the serve
# run for 2025-11-25 must speak 2025-11-25 to it.
#
# Which scenarios run comes from the suite: every server scenario each requirement set
# names (`list --server --requirements <set>`), scored or not (extensions, pending, added
# after the release), at that set's wire (`--spec-version <set> --force`), and every server
# scenario no set names (`list --server`: the skills extension) at the newest set's wire.
# A failing scenario runs again, on both sides alike, and passes if any attempt passes: up
# to CONFORMANCE_SERVER_ATTEMPTS times (default 3), and up to CONFORMANCE_SERVER_FLAKY_ATTEMPTS
# times (default 20) for the scenarios mcp-go's own conformance baseline lists as
# intermittent (conformance/server/expected-failures.yml in its module: a notification sent
# just before a tool's result is sometimes dropped by its streamable HTTP server, mcp-go
# pull request 969). serve is an mcp-go server in front of one, so through serve such a
# notification has two chances to be lost.
#
# Results: OUTDIR/<wire>/<side>/ (side: direct or serve) holds the suite's result folders
# (server-<scenario>-<time>/checks.json) and, per scenario, <scenario>.log (every attempt's
# output), <scenario>.exit (the last attempt's exit code: 0 when one passed) and
# <scenario>.attempts (how many ran); OUTDIR/<wire>/scenarios lists "<scenario> <kind>", in
# the order they ran, kind saying how the set lists it (required, extension, pending,
# added-after-release, or unlisted: in no set). server-table.sh
# turns them into README's server table. CONFORMANCE_FILTER (an extended regex over
# "<scenario> <wire>") runs only the matching scenarios; CONFORMANCE_SERVER_BUDGET
# (seconds, default 600) bounds the whole run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: server.sh OUTDIR}"
: "${MCP_BRIDGE:?MCP_BRIDGE must name the mcp-bridge binary}"
node="$here/node_modules/.bin/node"
version=0.2.0-alpha.12
suite="$here/node_modules/conformance-$version/dist/index.js"
budget="${CONFORMANCE_SERVER_BUDGET:-600}"
attempts="${CONFORMANCE_SERVER_ATTEMPTS:-3}"
flaky_attempts="${CONFORMANCE_SERVER_FLAKY_ATTEMPTS:-20}"
filter="${CONFORMANCE_FILTER:-}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

backend="${CONFORMANCE_BACKEND:-}"
if [ -z "$backend" ]; then
  backend="$out/backend"
  (cd "$here/../.." && go build -o "$backend" github.com/mark3labs/mcp-go/examples/conformance)
fi

# The scenarios mcp-go's baseline lists under "server:".
baseline="$(cd "$here/../.." && go list -m -f '{{.Dir}}' github.com/mark3labs/mcp-go)/conformance/server/expected-failures.yml"
flaky=" $(awk '/^[^ #]/ {s = ($1 == "server:")} s && /^  - / {print $2}' "$baseline" 2>/dev/null | tr '\n' ' ') "
echo "conformance server: mcp-go's baseline lists as intermittent:$flaky(up to $flaky_attempts attempts; others $attempts)"

# Processes this script started, stopped on every way out (no orphans).
backend_pid="" serve_pid="" home=""
stop() {
  local pid
  for pid in $serve_pid $backend_pid; do
    kill "$pid" 2>/dev/null || true
    # A process that ignores SIGTERM is killed after 10 s rather than waited for.
    timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  serve_pid="" backend_pid=""
  [ -z "$home" ] || rm -rf "$home"
  home=""
}
trap stop EXIT
trap 'exit 130' INT TERM

start=$SECONDS
over_budget() {
  if ((SECONDS - start > budget)); then
    echo "conformance server: over the budget of ${budget}s $1 (results in $out)" >&2
    exit 1
  fi
}

# A free loopback port: the backend takes an address, not port 0, and does not say which
# port it got.
free_port() {
  "$node" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# start_backend WIRE: the backend on a free port; sets backend_url.
start_backend() {
  local port i
  port=$(free_port)
  CONFORMANCE_ADDR="127.0.0.1:$port" "$backend" >"$out/$1/backend.log" 2>&1 &
  backend_pid=$!
  for ((i = 0; i < 100; i++)); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/health" 2>/dev/null; then
      backend_url="http://127.0.0.1:$port/mcp"
      return
    fi
    if ! kill -0 "$backend_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "conformance server: the backend did not answer /health on port $port (log $out/$1/backend.log)" >&2
  exit 1
}

# start_serve WIRE: mcp-bridge serve in front of the backend, pinned to WIRE; sets serve_url
# from the line it prints once it listens (it lists the backend first).
start_serve() {
  local log="$out/$1/serve.log" i
  home="$(mktemp -d)"
  "$node" -e 'console.log(JSON.stringify({ mcpServers: { conf: { url: process.argv[1], protocolVersion: process.argv[2] } } }))' \
    "$backend_url" "$1" >"$home/mcp.json"
  ZOT_HOME="$home" "$MCP_BRIDGE" serve --http 127.0.0.1:0 --tools all --prefix none </dev/null >"$log" 2>&1 &
  serve_pid=$!
  for ((i = 0; i < 300; i++)); do
    serve_url=$(sed -n 's|^mcp-bridge serve: listening on \(http://[^ ]*\) .*|\1|p' "$log" | head -1)
    [ -z "$serve_url" ] || return 0
    if ! kill -0 "$serve_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "conformance server: mcp-bridge serve did not print its URL (log $log)" >&2
  exit 1
}

# scenarios WIRE: "<scenario> <kind>" lines, every server scenario the set names.
scenarios() {
  "$node" "$suite" list --server --requirements "$1" | awk '
    /^Server scenarios/ {c = 1; next}
    /^[^ ]/ {c = 0}
    c && /^  - / {print $2, "required"}
    /^  [a-z-]+ \([0-9]+\):$/ {kind = $1}
    /^    - .* \[server\]$/ {print $2, kind}'
}

# run_one WIRE SIDE URL SCENARIO: up to $attempts runs ($flaky_attempts for a flaky one),
# stopping at the first that passes.
passed_direct="" regressions=""
run_one() {
  local wire=$1 side=$2 url=$3 s=$4 dir="$out/$1/$2" n rc summary
  local base="$dir/$s" max=$attempts left
  case "$flaky" in *" $s "*) max=$flaky_attempts ;; esac
  rm -rf "$dir/server-$s"-[0-9][0-9][0-9][0-9]-* "$base.log"
  for ((n = 1; n <= max; n++)); do
    rc=0
    echo "== attempt $n" >>"$base.log"
    # The budget bounds a run that hangs too, not only the time between runs.
    left=$((budget - (SECONDS - start)))
    ((left > 10)) || left=10
    timeout "$left" "$node" "$suite" server --url "$url" --scenario "$s" --spec-version "$wire" --force -o "$dir" \
      </dev/null >>"$base.log" 2>&1 || rc=$?
    # A run whose checks are all skipped says nothing: it counts as failed.
    if [ "$rc" = 0 ] && ! "$node" -e 'process.exit(require(process.argv[1]).some(c => c.status === "SUCCESS") ? 0 : 1)' \
      "$(ls -d "$dir/server-$s"-[0-9][0-9][0-9][0-9]-* 2>/dev/null | sort | tail -1)/checks.json" 2>/dev/null; then
      rc="no check passed"
    fi
    [ "$rc" != 0 ] || break
    over_budget "after $s ($side, attempt $n)"
  done
  ((n <= max)) || n=$max
  echo "$rc" >"$base.exit"
  echo "$n" >"$base.attempts"
  summary=$(grep -o 'Passed: [0-9]*/[0-9]*.*warnings' "$base.log" | tail -1 || true)
  local tries=""
  ((n == 1)) || tries=", $n attempts"
  if [ "$rc" = 0 ]; then
    echo "conformance server $s at $wire, $side: ${summary:-passed}$tries"
    [ "$side" != direct ] || passed_direct="$passed_direct $wire:$s "
  else
    echo "conformance server $s at $wire, $side: failed (${summary:-no summary}$tries; log $base.log)"
    case "$passed_direct" in *" $wire:$s "*) regressions="$regressions $s@$wire" ;; esac
  fi
  over_budget "after $s ($side)"
}

wires=$("$node" "$suite" list --help | tr -s ' \n' ' ' | sed -n 's/.*Requirement sets available: \([0-9, -]*\).*/\1/p' | tr -d ' ' | tr , ' ')
if [ -z "$wires" ]; then
  echo "conformance server: the suite names no requirement sets (has \`list --help\` changed?); nothing would be run" >&2
  exit 1
fi
newest=$(tr ' ' '\n' <<<"$wires" | sort | tail -1)
all=$("$node" "$suite" list --server | sed -n 's/^  - \([^ ]*\).*/\1/p')
echo "== conformance server scenarios ($version: $("$node" "$suite" --version)), wires: $wires"
for wire in $wires; do
  list=$(scenarios "$wire")
  # A suite whose lists this script cannot read must not pass by running nothing.
  if [ "$(wc -l <<<"$list")" -lt 5 ]; then
    echo "conformance server: found only these server scenarios for $wire (has the list output changed?): $list" >&2
    exit 1
  fi
  if [ "$wire" = "$newest" ]; then
    listed=" $(awk '{print $1}' <<<"$(for w in $wires; do scenarios "$w"; done)" | tr '\n' ' ') "
    while read -r s; do
      case "$listed" in *" $s "*) ;; *) list="$list"$'\n'"$s unlisted" ;; esac
    done <<<"$all"
  fi
  if [ -n "$filter" ]; then
    list=$(while read -r s kind; do
      if grep -qE "$filter" <<<"$s $wire"; then echo "$s $kind"; fi
    done <<<"$list")
  fi
  [ -n "$list" ] || continue
  mkdir -p "$out/$wire/direct" "$out/$wire/serve"
  echo "$list" >"$out/$wire/scenarios"

  start_backend "$wire"
  echo "== $wire, directly against the backend ($backend_url)"
  while read -r s kind; do run_one "$wire" direct "$backend_url" "$s"; done <<<"$list"
  start_serve "$wire"
  echo "== $wire, through mcp-bridge serve --http --tools all --prefix none (backend pinned to $wire)"
  while read -r s kind; do run_one "$wire" serve "$serve_url" "$s"; done <<<"$list"
  stop
done

echo "conformance server: $((SECONDS - start))s"
if [ -z "$passed_direct" ] && [ -z "$filter" ]; then
  echo "conformance server: no scenario passed directly against the backend, so nothing was shown of serve" >&2
  exit 1
fi
if [ -n "$regressions" ]; then
  echo "conformance server: passed directly but failed through serve:$regressions (logs in $out/<wire>/serve/)" >&2
  exit 1
fi
echo "conformance server: every scenario that passed directly passed through serve"
