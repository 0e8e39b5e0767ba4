#!/usr/bin/env bash
# Runs the official MCP client conformance suite, every version pinned in package.json
# (npm aliases conformance-<version>), against the mcp-bridge CLI as the client
# (client.sh), and fails unless every scenario passes that `unsupported` does not list.
#
#   MCP_BRIDGE=/path/to/mcp-bridge .ci/conformance/run.sh OUTDIR
#
# Which scenarios run, and at which wire version, comes from the suite itself, so a new
# suite version cannot skip a new scenario silently:
#   - a suite with requirement sets (0.2.0 and later; `list --help` names them) runs each
#     client scenario of each set at that set's wire (`--spec-version <set> --force`, which
#     is what `client --requirements <set>` does, one scenario at a time), the scenarios it
#     runs but does not score (extensions, added after the release) included;
#   - every other client scenario of `list --client` (the 2025-03-26 backcompat ones, the
#     extensions no set names) runs at its newest named revision, or where it names none
#     at the suite's default;
#   - a suite without requirement sets (0.1.16) runs each client scenario once, naming no
#     wire: it tells the client none, so the bridge negotiates.
# `unsupported` may list only extension scenarios, each explained in README "Conformance",
# and never the client-credentials ones (issue 22 requires them).
#
# Results: OUTDIR/<version>/<wire>/ holds the suite's own result folders
# (<scenario>-<time>/checks.json) and, per scenario, <scenario>.log (the suite's output)
# and <scenario>.exit (its exit code, or "unsupported"). table.sh turns them into README's
# table. CONFORMANCE_FILTER (an extended regex over "<version> <scenario> <wire>") runs
# only the matching runs; CONFORMANCE_BUDGET (seconds, default 900) bounds the whole run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: run.sh OUTDIR}"
: "${MCP_BRIDGE:?MCP_BRIDGE must name the mcp-bridge binary}"
node="$here/node_modules/.bin/node"
budget="${CONFORMANCE_BUDGET:-900}"
filter="${CONFORMANCE_FILTER:-}"
# Extension scenarios that must pass all the same (issue 22, items 6 and 7).
required_extensions="auth/client-credentials-basic auth/client-credentials-jwt"
readme="$here/../../README.md"
conformance_doc=$(sed -n '/^### Conformance/,/^### /p' "$readme")

versions=$("$node" -e '
  for (const k of Object.keys(require(process.argv[1]).dependencies))
    if (k.startsWith("conformance-")) console.log(k.slice("conformance-".length))' "$here/package.json")

# runs VERSION: "<scenario> <wire>" lines, wire "-" where the run names none.
runs() {
  local suite="$here/node_modules/conformance-$1/dist/index.js" sets all s tags rev
  all=$("$node" "$suite" list --client | sed -n 's/^  - \([^ ]*\)\( \[\(.*\)\]\)\{0,1\}$/\1 \3/p')
  sets=$("$node" "$suite" list --help | tr -s ' \n' ' ' | sed -n 's/.*Requirement sets available: \([0-9, -]*\).*/\1/p' | tr -d ' ' | tr , ' ')
  if [ -z "$sets" ]; then
    awk '{print $1, "-"}' <<<"$all"
    return
  fi
  local listed=""
  for rev in $sets; do
    while read -r s; do
      echo "$s $rev"
      listed="$listed $s "
    done < <("$node" "$suite" list --client --requirements "$rev" |
      awk '/^Client scenarios/ {c=1; next} /^[^ ]/ {c=0} c && /^  - / {print $2} /^    - .* \[client\]$/ {print $2}')
  done
  while read -r s tags; do
    case "$listed" in *" $s "*) continue ;; esac
    rev=$(tr , '\n' <<<"$tags" | grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' | sort | tail -1 || true)
    echo "$s ${rev:--}"
  done <<<"$all"
}

# Check the unsupported list against the suites and README before running anything.
unsupported=$(grep -v '^#' "$here/unsupported" | grep -v '^[[:space:]]*$' || true)
while read -r version s reason; do
  [ -n "$version" ] || continue
  if ! grep -qxF "$version" <<<"$versions"; then
    echo "conformance: unsupported names suite version $version, which package.json does not pin" >&2
    exit 1
  fi
  tags=$("$node" "$here/node_modules/conformance-$version/dist/index.js" list --client | sed -n "s|^  - $s \[\(.*\)\]\$|\1|p")
  if [ "$tags" != extension ]; then
    what="no client scenario of that suite"
    [ -z "$tags" ] || what="not an extension scenario (it is tagged $tags)"
    echo "conformance: unsupported lists $s for $version, which is $what; only extension scenarios may be skipped" >&2
    exit 1
  fi
  if grep -qwF "$s" <<<"$required_extensions"; then
    echo "conformance: unsupported lists $s, which must pass (issue 22 item 6)" >&2
    exit 1
  fi
  if [ -z "$reason" ] || ! grep -qF "\`$s\`" <<<"$conformance_doc"; then
    echo "conformance: unsupported lists $s but gives no reason, or README \"Conformance\" does not say why" >&2
    exit 1
  fi
done <<<"$unsupported"

start=$SECONDS
passed=0 failed=0 skipped=0 failures=""
for version in $versions; do
  suite="$here/node_modules/conformance-$version/dist/index.js"
  echo "== conformance $version ($("$node" "$suite" --version))"
  list=$(runs "$version")
  # A suite whose lists this script cannot read must not pass by running nothing.
  if [ "$(wc -l <<<"$list")" -lt 5 ]; then
    echo "conformance: found only these client scenarios in suite $version (has its list output changed?): $list" >&2
    exit 1
  fi
  while read -r s wire; do
    if [ -n "$filter" ] && ! grep -qE "$filter" <<<"$version $s $wire"; then
      continue
    fi
    dir="$out/$version/$wire"
    base="$dir/$s"
    mkdir -p "$(dirname "$base")"
    at=""
    [ "$wire" = - ] || at=" at $wire"
    if reason=$(awk -v v="$version" -v s="$s" '$1 == v && $2 == s {$1 = $2 = ""; sub(/^ +/, ""); print; found=1} END {exit !found}' <<<"$unsupported"); then
      echo unsupported >"$base.exit"
      echo "conformance $s$at: skipped (not supported: $reason)"
      skipped=$((skipped + 1))
      continue
    fi
    rm -rf "$dir/$s"-[0-9][0-9][0-9][0-9]-*
    args=(client --command "$here/client.sh" --scenario "$s" --timeout 30000 -o "$dir")
    [ "$wire" = - ] || args+=(--spec-version "$wire" --force)
    rc=0
    "$node" "$suite" "${args[@]}" </dev/null >"$base.log" 2>&1 || rc=$?
    # A run whose checks are all skipped says nothing (the suite passes it when the client
    # may exit with an error): it counts as failed.
    if [ "$rc" = 0 ] && ! grep -qs '"status": "SUCCESS"' "$dir/$s"-[0-9][0-9][0-9][0-9]-*/checks.json; then
      rc="no check passed"
    fi
    echo "$rc" >"$base.exit"
    summary=$(grep -o 'Passed: [0-9]*/[0-9]*.*warnings' "$base.log" | tail -1 || true)
    if [ "$rc" = 0 ]; then
      passed=$((passed + 1))
      echo "conformance $s$at: ${summary:-passed}"
    else
      failed=$((failed + 1))
      failures="$failures $version:$s@$wire"
      echo "conformance $s$at: FAILED (${summary:-no summary}; log $base.log)"
    fi
    if ((SECONDS - start > budget)); then
      echo "conformance: over the budget of ${budget}s after $s (results in $out)" >&2
      exit 1
    fi
  done <<<"$list"
done
echo "conformance: $((SECONDS - start))s for $((passed + failed)) runs"
if [ -n "$failures" ]; then
  echo "conformance runs failed:$failures (logs in $out)" >&2
fi
echo "conformance: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
