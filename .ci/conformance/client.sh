#!/usr/bin/env bash
# The client command the conformance suite runs: `client.sh <server-url>`, with the scenario
# in MCP_CONFORMANCE_SCENARIO, the wire version the suite's server speaks in
# MCP_CONFORMANCE_PROTOCOL_VERSION (0.2.0 and later; unset, the bridge negotiates) and, for
# some scenarios, what a user would have been given (client credentials, the tool calls to
# make) as JSON in MCP_CONFORMANCE_CONTEXT. It points a throw-away ZOT_HOME at the suite's
# server and drives the mcp-bridge CLI as a user would: for auth/* a login first
# (browser.sh as $BROWSER), then refresh (the era's handshake + tools/list), then the calls
# the scenario waits for. MCP_BRIDGE names the binary under test. A scenario with no steps
# here exits 2, so a new scenario of a new suite version fails rather than passes unseen.
set -euo pipefail
url="${!#}"
bin="${MCP_BRIDGE:?MCP_BRIDGE must name the mcp-bridge binary}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node="$here/node_modules/.bin/node"
scenario="${MCP_CONFORMANCE_SCENARIO:-}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export ZOT_HOME="$home"
# The user's browser for every command, not only login: a refresh or call that has to log
# in again (another authorization server, more scope) opens it as a login does.
export BROWSER="$here/browser.sh"
cd "$home"

# The server entry, written by node (JSON from the environment, no shell quoting):
# "protocolVersion" pins the wire the suite's server speaks (branch era's config field; an
# older bridge warns that it does not know the field and negotiates, which is the same for
# a legacy server). Secrets go in as ${VAR} references, as the README tells users to.
"$node" - "$url" >"$home/mcp.json" <<'JS'
const url = process.argv[2];
const env = process.env;
const ctx = env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(env.MCP_CONFORMANCE_CONTEXT) : {};
const srv = { url, connectTimeout: 20, requestTimeout: 20 };
if (env.MCP_CONFORMANCE_PROTOCOL_VERSION) srv.protocolVersion = env.MCP_CONFORMANCE_PROTOCOL_VERSION;
// OAuth client settings (README "OAuth client settings"): the suite's client ID metadata
// document URL in place of the bridge's default one, and the pre-registered or
// client-credentials client the suite hands (its ID and a secret or a private key).
if (/^auth\//.test(env.MCP_CONFORMANCE_SCENARIO || "")) {
  srv.oauth = { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}
if (ctx.client_id) {
  srv.oauth = { ...srv.oauth, clientId: ctx.client_id };
  if (ctx.client_secret) srv.oauth.clientSecret = "${CONFORMANCE_CLIENT_SECRET}";
  if (ctx.private_key_pem) {
    srv.oauth.privateKey = "${CONFORMANCE_PRIVATE_KEY}";
    if (ctx.signing_algorithm) srv.oauth.signingAlgorithm = ctx.signing_algorithm;
  }
  if (/^auth\/client-credentials-/.test(ctx.name || "")) srv.oauth.grantType = "client_credentials";
}
process.stdout.write(JSON.stringify({ mcpServers: { conformance: srv } }) + "\n");
JS
ctx_get() { # ctx_get FIELD: one string field of MCP_CONFORMANCE_CONTEXT, or nothing
  "$node" -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); const v = c[process.argv[1]]; if (typeof v === "string") process.stdout.write(v)' "$1"
}
CONFORMANCE_CLIENT_SECRET="$(ctx_get client_secret)"
CONFORMANCE_PRIVATE_KEY="$(ctx_get private_key_pem)"
export CONFORMANCE_CLIENT_SECRET CONFORMANCE_PRIVATE_KEY

call() { "$bin" call conformance "$@" --accept-defaults </dev/null; }

case "$scenario" in
  auth/*)
    # OAuth scenarios: log in first (discovery, registration, PKCE authorization code flow;
    # browser.sh stands in for the user's browser), then list the tools and call the one
    # the suite's protected server offers, with the token.
    "$bin" login conformance </dev/null
    ;;
esac
# refresh --login: a server that needs a new login by now (auth/authorization-server-migration
# accepts the first authorization server's token once, at the login's own listing) gets it.
case "$scenario" in
  auth/*) "$bin" refresh --login ;;
  *) "$bin" refresh ;;
esac
case "$scenario" in
  # --login: when the call needs a new login (more scope, another authorization server),
  # log in again (browser.sh) and call again, as the CLI does on a terminal; at most twice.
  auth/*) call test-tool '{}' --login ;;
  # The handshake and tools/list of refresh are what these scenarios look at.
  initialize | request-metadata | json-schema-ref-no-deref) ;;
  tools_call) call add_numbers '{"a": 2, "b": 3}' ;;
  elicitation-sep1034-client-defaults) call test_client_elicitation_defaults ;;
  sse-retry) call test_reconnection ;;
  sep-2322-client-request-state)
    # Each asks for input (multi-round-trip) but the unrelated one and the one without a
    # resultType; --accept-defaults answers the questions.
    call test_mrtr_echo_state
    call test_mrtr_unrelated
    call test_mrtr_no_state
    call test_mrtr_no_result_type
    ;;
  http-standard-headers)
    call test_headers
    call my-hyphenated-tool
    ;;
  http-custom-headers)
    # The suite names the calls (tool and arguments) in the context.
    "$node" -e 'for (const c of JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).toolCalls) console.log(c.name + "\t" + JSON.stringify(c.arguments))' |
      while IFS=$'\t' read -r tool args; do call "$tool" "$args"; done
    ;;
  http-invalid-tool-headers)
    # The tools with invalid x-mcp-header annotations must be left out: call every tool the
    # bridge lists, as a model might, with a value of the right type for each required
    # parameter. The suite fails the run if one of the invalid ones is called.
    "$bin" tools --server conformance --json | "$node" -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        const sample = { string: "us-west1", integer: 1, number: 1, boolean: true, object: {}, array: [], null: null };
        for (const t of JSON.parse(s)) {
          const schema = t.inputSchema || {}, args = {};
          for (const p of schema.required || []) args[p] = sample[(schema.properties || {})[p]?.type] ?? "x";
          console.log(t.tool + "\t" + JSON.stringify(args));
        }
      })' | while IFS=$'\t' read -r tool args; do call "$tool" "$args"; done
    ;;
  json-schema-2020-12-preservation)
    # Echo the focal tool's input schema, as the bridge keeps it, back to the server.
    args="$("$bin" tools --server conformance --json | "$node" -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        const t = JSON.parse(s).find(t => t.tool === "json_schema_2020_12_tool");
        if (!t || !t.inputSchema) { console.error("client.sh: tools --json shows no inputSchema of json_schema_2020_12_tool"); process.exit(1); }
        process.stdout.write(JSON.stringify({ schema: t.inputSchema }));
      })')"
    call json_schema_echo "$args"
    ;;
  *) echo "client.sh: no steps for scenario ${scenario:-(unset)}" >&2; exit 2 ;;
esac
