#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, each run against
# `air-mcp` (crates/air-mcp-cli), the app's MCP client core on the command
# line (its OAuth steps are `air-oauth`'s). The runner starts a scenario
# server, runs the command with the server's URL appended, and checks what
# the client did. Every auth scenario runs, the three marked draft too;
# those marked extension (client credentials, cross-app access) are not
# offered by this client.
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
# Sign-in: the client's metadata document is offered where the server takes
# one (auth/basic-cimd checks it is the URL used), else it registers.
AUTH="$BIN --client-metadata-url https://conformance-test.local/client-metadata.json call test-tool {}"
for s in metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd \
  scope-from-www-authenticate scope-from-scopes-supported scope-omitted-when-undefined \
  scope-step-up scope-retry-limit token-endpoint-auth-basic token-endpoint-auth-post \
  token-endpoint-auth-none 2025-03-26-oauth-metadata-backcompat 2025-03-26-oauth-endpoint-fallback \
  resource-mismatch offline-access-scope offline-access-not-supported; do
  SCENARIOS+=("auth/$s|$AUTH")
done
# Credentials the user entered (the runner hands them over in its context).
SCENARIOS+=("auth/pre-registration|$HERE/preregistered.sh $BIN call test-tool {}")

failed=()
for entry in "${SCENARIOS[@]}"; do
  name="${entry%%|*}"
  cmd="${entry#*|}"
  log="$OUT/${name//\//-}.log"
  if conformance client --command "$cmd" --scenario "$name" --output-dir "$OUT" >"$log" 2>&1; then
    printf '  ok    %s (%s)\n' "$name" "$(grep -o 'Passed: [0-9]*/[0-9]*' "$log" | tail -1)"
  else
    printf '  FAIL  %s\n' "$name"
    sed 's/^/        /' "$log" | tail -40
    failed+=("$name")
  fi
done
# The 2026-07-28 requirement set of the pre-release suite, every client
# scenario through one dispatcher (client-2026.sh). Its exit status counts
# the scored scenarios only; the extensions it also runs (client
# credentials, enterprise-managed authorization, DPoP, WIF) are not offered.
log="$OUT/2026-07-28.log"
if node "$HERE/alpha/node_modules/@modelcontextprotocol/conformance/dist/index.js" client \
    --command "bash $HERE/client-2026.sh $BIN" --requirements 2026-07-28 -o "$OUT/2026" >"$log" 2>&1; then
  printf '  ok    2026-07-28 requirement set (%s scenarios passed; %s)\n' "$(grep -c '^✓' "$log")" "$(grep -o 'Total: .*' "$log" | tail -1)"
else
  printf '  FAIL  2026-07-28 requirement set\n'
  grep -E '^(✓|✗)|Total' "$log" | sed 's/^/        /'
  failed+=("2026-07-28")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "conformance scenarios failed: ${failed[*]}" >&2
  exit 1
fi
