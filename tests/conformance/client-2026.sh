#!/usr/bin/env bash
# One client command for every client scenario of the MCP conformance suite
# (0.2.0-alpha.x): the runner appends the server URL and sets
# MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT where a scenario
# hands the client data). Works with `--scenario NAME` and with
# `--requirements 2026-07-28` (one --command for all).
#
#   client-2026.sh PATH/TO/air-mcp URL
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="$1"; URL="$2"
S="${MCP_CONFORMANCE_SCENARIO:?the runner sets MCP_CONFORMANCE_SCENARIO}"
ctx() { node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); const v = process.argv[1].split(".").reduce((o, k) => o?.[k], c); process.stdout.write(typeof v === "string" ? v : JSON.stringify(v ?? ""))' "$1"; }
AUTH=("$BIN" --client-metadata-url https://conformance-test.local/client-metadata.json)

case "$S" in
  initialize|request-metadata|json-schema-ref-no-deref)
    exec "$BIN" tools "$URL" ;;
  tools_call)
    exec "$BIN" call add_numbers '{"a":5,"b":3}' "$URL" ;;
  elicitation-sep1034-client-defaults)
    exec "$BIN" --accept-defaults call test_client_elicitation_defaults '{}' "$URL" ;;
  sse-retry)
    exec "$BIN" call test_reconnection '{}' "$URL" ;;
  auth/pre-registration)
    exec "$BIN" --client-id "$(ctx client_id)" --client-secret "$(ctx client_secret)" call test-tool '{}' "$URL" ;;
  auth/*)
    exec "${AUTH[@]}" call test-tool '{}' "$URL" ;;
  sep-2322-client-request-state)
    printf '%s\n' 'call test_mrtr_echo_state {}' 'call test_mrtr_no_state {}' \
      'call test_mrtr_unrelated {}' 'call test_mrtr_no_result_type {}' \
      | "$BIN" --accept-defaults script "$URL" ;;
  http-standard-headers)
    printf '%s\n' 'tools' 'call test_headers {}' 'call my-hyphenated-tool {}' 'resources' \
      'request resources/read {"uri":"file:///path/to/file%20name.txt"}' \
      'request prompts/list {}' 'request prompts/get {"name":"test_prompt"}' \
      | "$BIN" script "$URL" ;;
  http-custom-headers)
    # The scenario says which calls to make, with which arguments.
    node -e 'for (const c of JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).toolCalls) console.log(`call ${c.name} ${JSON.stringify(c.arguments)}`)' \
      | "$BIN" script "$URL" ;;
  http-invalid-tool-headers)
    # Call every tool the client offers (a valid one must be kept, the
    # invalid ones left out), with a string for each required argument.
    "$BIN" tools "$URL" | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        for (const t of JSON.parse(s)) {
          const args = Object.fromEntries((t.inputSchema?.required ?? []).map(k => [k, "x"]));
          console.log(`call ${t.name} ${JSON.stringify(args)}`);
        }
      })' | "$BIN" script "$URL" ;;
  json-schema-2020-12-preservation)
    # Echo the focal tool's inputSchema, as the client parsed it.
    schema="$("$BIN" tools "$URL" | node -e '
      let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
        const t = JSON.parse(s).find(t => t.name === "json_schema_2020_12_tool");
        process.stdout.write(JSON.stringify({ schema: t?.inputSchema ?? {} }));
      })')"
    exec "$BIN" call json_schema_echo "$schema" "$URL" ;;
  *)
    echo "client.sh: no command for scenario $S" >&2; exit 3 ;;
esac
