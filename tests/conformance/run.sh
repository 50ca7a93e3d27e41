#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios (not auth), each run
# against `air-mcp` (crates/air-mcp-cli), the app's MCP client core on the
# command line. The runner starts a scenario server, runs the command with
# the server's URL appended, and checks what the client did.
#
#   tests/conformance/run.sh PATH/TO/air-mcp
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:?usage: run.sh PATH/TO/air-mcp}"
# The suite needs Node >= 22: the one installed next to it comes first.
export PATH="$HERE/node_modules/.bin:$PATH"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

# scenario | the command (the runner appends the URL; it goes through a shell)
SCENARIOS=(
  "initialize|$BIN tools"
  "tools_call|$BIN call add_numbers '{\"a\":5,\"b\":3}'"
  "elicitation-sep1034-client-defaults|$BIN --accept-defaults call test_client_elicitation_defaults {}"
  "sse-retry|$BIN call test_reconnection {}"
)

failed=()
for entry in "${SCENARIOS[@]}"; do
  name="${entry%%|*}"
  cmd="${entry#*|}"
  if conformance client --command "$cmd" --scenario "$name" --output-dir "$OUT" >"$OUT/$name.log" 2>&1; then
    printf '  ok    %s (%s)\n' "$name" "$(grep -o 'Passed: [0-9]*/[0-9]*' "$OUT/$name.log" | tail -1)"
  else
    printf '  FAIL  %s\n' "$name"
    sed 's/^/        /' "$OUT/$name.log" | tail -40
    failed+=("$name")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "conformance scenarios failed: ${failed[*]}" >&2
  exit 1
fi
