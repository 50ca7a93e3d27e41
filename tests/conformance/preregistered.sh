#!/usr/bin/env bash
# Runs the client with the credentials a scenario pre-registered for it
# (auth/pre-registration: the runner passes them in MCP_CONFORMANCE_CONTEXT,
# as a user would type them into the app's server settings).
#
#   preregistered.sh PATH/TO/air-mcp ARGS... URL
set -euo pipefail
bin="$1"; shift
field() { node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(c[process.argv[1]] ?? "")' "$1"; }
exec "$bin" --client-id "$(field client_id)" --client-secret "$(field client_secret)" "$@"
