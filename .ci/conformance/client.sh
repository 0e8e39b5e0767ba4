#!/usr/bin/env bash
# The client command the conformance suite runs: `client.sh <server-url>`, with the scenario
# in MCP_CONFORMANCE_SCENARIO. It points a throw-away ZOT_HOME at the suite's server and
# drives the mcp-bridge CLI as a user would: for auth/* the entry's "oauth" settings from
# the scenario's context and a login first (browser.sh as $BROWSER), then refresh
# (initialize + tools/list), then the call the scenario waits for.
# MCP_BRIDGE names the binary under test.
set -euo pipefail
url="${!#}"
bin="${MCP_BRIDGE:?MCP_BRIDGE must name the mcp-bridge binary}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export ZOT_HOME="$home"
printf '{"mcpServers": {"conformance": {"url": "%s", "connectTimeout": 20, "requestTimeout": 20}}}\n' "$url" >"$home/mcp.json"
cd "$home"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/*)
    # The entry's "oauth" object from the scenario's context (MCP_CONFORMANCE_CONTEXT:
    # a pre-registered client's id and secret, a client-credentials key), and the suite's
    # client ID metadata document URL in place of the bridge's default one. A secret goes
    # in as a ${VAR} reference, the private key as a file, as a user would write them.
    node="${NODE:-$here/node_modules/.bin/node}"
    [ -x "$node" ] || node="$(command -v node)"
    export CONFORMANCE_CLIENT_SECRET
    CONFORMANCE_CLIENT_SECRET="$("$node" -e 'process.stdout.write(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}").client_secret || "")')"
    "$node" -e '
      const fs = require("fs");
      const [file, url, scenario, home] = process.argv.slice(1);
      const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
      const oauth = {clientMetadataUrl: "https://conformance-test.local/client-metadata.json"};
      if (ctx.client_id) oauth.clientId = ctx.client_id;
      if (ctx.client_secret) oauth.clientSecret = "${CONFORMANCE_CLIENT_SECRET}";
      if (ctx.private_key_pem) {
        fs.writeFileSync(home + "/client-key.pem", ctx.private_key_pem, {mode: 0o600});
        oauth.privateKeyFile = home + "/client-key.pem";
        if (ctx.signing_algorithm) oauth.signingAlgorithm = ctx.signing_algorithm;
      }
      if (scenario.startsWith("auth/client-credentials-")) oauth.grantType = "client_credentials";
      const entry = {url, connectTimeout: 20, requestTimeout: 20, oauth};
      fs.writeFileSync(file, JSON.stringify({mcpServers: {conformance: entry}}) + "\n");
    ' "$home/mcp.json" "$url" "$MCP_CONFORMANCE_SCENARIO" "$home"
    # OAuth scenarios: log in first (discovery, registration, PKCE authorization code flow;
    # browser.sh stands in for the user's browser), then list the tools and call the one
    # the suite's protected server offers, with the token.
    export BROWSER="$here/browser.sh"
    "$bin" login conformance </dev/null
    ;;
esac
"$bin" refresh
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  # --login: when the server asks for more scopes (403 insufficient_scope), log in again
  # (with browser.sh) and call again, as the CLI does on a terminal.
  auth/*) "$bin" call conformance test-tool '{}' --login </dev/null ;;
  initialize) ;;
  tools_call) "$bin" call conformance add_numbers '{"a": 2, "b": 3}' ;;
  elicitation-sep1034-client-defaults)
    "$bin" call conformance test_client_elicitation_defaults --accept-defaults </dev/null ;;
  sse-retry) "$bin" call conformance test_reconnection ;;
  *) echo "client.sh: no steps for scenario ${MCP_CONFORMANCE_SCENARIO:-(unset)}" >&2; exit 2 ;;
esac
