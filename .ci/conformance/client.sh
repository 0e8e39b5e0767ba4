#!/usr/bin/env bash
# The client command the conformance suite runs: `client.sh <server-url>`, with the scenario
# in MCP_CONFORMANCE_SCENARIO. It points a throw-away ZOT_HOME at the suite's server and
# drives the mcp-bridge CLI as a user would: for auth/* a login first (browser.sh as
# $BROWSER), then refresh (initialize + tools/list), then the call the scenario waits for.
# MCP_BRIDGE names the binary under test.
set -euo pipefail
url="${!#}"
bin="${MCP_BRIDGE:?MCP_BRIDGE must name the mcp-bridge binary}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export ZOT_HOME="$home"
printf '{"mcpServers": {"conformance": {"url": "%s", "connectTimeout": 20, "requestTimeout": 20}}}\n' "$url" >"$home/mcp.json"
cd "$home"
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/*)
    # OAuth scenarios: log in first (discovery, registration, PKCE authorization code flow;
    # browser.sh stands in for the user's browser), then list the tools and call the one
    # the suite's protected server offers, with the token.
    BROWSER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/browser.sh" "$bin" login conformance </dev/null
    ;;
esac
"$bin" refresh
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/*) "$bin" call conformance test-tool '{}' ;;
  initialize) ;;
  tools_call) "$bin" call conformance add_numbers '{"a": 2, "b": 3}' ;;
  elicitation-sep1034-client-defaults)
    "$bin" call conformance test_client_elicitation_defaults --accept-defaults </dev/null ;;
  sse-retry) "$bin" call conformance test_reconnection ;;
  *) echo "client.sh: no steps for scenario ${MCP_CONFORMANCE_SCENARIO:-(unset)}" >&2; exit 2 ;;
esac
