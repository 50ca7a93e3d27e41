#!/usr/bin/env bash
# Records the exchanges that crates/air-mcp/tests/replay.rs replays: the
# CLI (`air-mcp script`) runs a list of commands against real servers on
# 127.0.0.1 with AIR_MCP_TRACE set, and the trace becomes a cassette in
# crates/air-mcp/tests/fixtures/replay/. Not part of the test run: the
# cassettes are committed. Needs the servers' packages (see
# crates/air-mcp/tests/fixtures/README.md for the versions):
#
#   PY194=venv-with-mcp-1.9.4/bin/python PY1124=venv-with-mcp-1.12.4/bin/python \
#   PY23=venv-with-mcp-2.3.0/bin/python bash tests/support/record-mcp-fixtures.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/crates/air-mcp/tests/fixtures/replay
CLI=$ROOT/target/debug/air-mcp
PORT=${PORT:-8631}
mkdir -p "$OUT"
(cd "$ROOT" && cargo build -q -p air-mcp-cli)

server_pid=
start_cmd=()
# Starts "${start_cmd[@]}" (where the word PORT is replaced) and waits for
# its "ready" or "listening" line.
start() {
  local cmd=("${start_cmd[@]/#PORT/$PORT}")
  PORT=$PORT "${cmd[@]}" > /tmp/record-server.log 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -qiE 'ready|listening on port|running on port' /tmp/record-server.log 2>/dev/null && return
    sleep 0.1
  done
  echo "the server did not start" >&2; cat /tmp/record-server.log >&2; exit 1
}
stop() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; server_pid=; }
trap stop EXIT

# record NAME URL COMMAND... (a command `restart` restarts the server)
record() {
  local name=$1 url=$2; shift 2
  local trace=$OUT/$name.jsonl
  rm -f "$trace"
  start
  coproc CLIENT { AIR_MCP_TRACE=$trace "$CLI" --accept-defaults script "$url" 2>/dev/null; }
  for c in "$@"; do
    if [ "$c" = restart ]; then
      stop; start
      continue
    fi
    # (What the servers send after an answer arrives before the next command.)
    sleep 0.3
    echo "$c" >&"${CLIENT[1]}"
    local line
    read -r -t 60 line <&"${CLIENT[0]}" || { echo "$name: no answer to $c" >&2; exit 1; }
    echo "  $name: $c -> ${line:0:100}"
  done
  exec {CLIENT[1]}>&-
  wait "$CLIENT_PID" || true
  stop
}

# (1.x servers break a session whose call was cancelled: the stop comes
# last, then the restarted server no longer knows the session.)
SESSIONS=(tools 'call add {"a":2,"b":40}' 'call count {"steps":3}')
ENDING=('call grow {}' tools 'abort 350 call count {"steps":30}' restart 'call add {"a":1,"b":1}')
V1=$ROOT/tests/support/py_mcp_server_v1.py

# Sessions of 2025-03-26 (PyPI mcp 1.9.4, which serves at /mcp/).
start_cmd=("$PY194" "$V1" PORT stateful)
record py-2025-03-26 "http://127.0.0.1:$PORT/mcp/" "${SESSIONS[@]}" "${ENDING[@]}"

# Sessions of 2025-06-18 (PyPI mcp 1.12.4, at /mcp): also a question mid-call.
start_cmd=("$PY1124" "$V1" PORT stateful)
record py-2025-06-18 "http://127.0.0.1:$PORT/mcp" "${SESSIONS[@]}" 'call favourite {}' "${ENDING[@]}"

# 2025-06-18 without sessions, JSON answers.
start_cmd=("$PY1124" "$V1" PORT stateless-json)
record py-2025-06-18-stateless-json "http://127.0.0.1:$PORT/mcp" tools 'call add {"a":2,"b":40}'

# 2026-07-28 (PyPI mcp 2.3.0): stateless requests, input_required, headers, ttlMs.
start_cmd=("$PY23" "$ROOT/tests/support/py_mcp_server.py" PORT stateless)
record py-2026-07-28 "http://127.0.0.1:$PORT/mcp" \
  tools 'call add {"a":2,"b":40}' 'call whoami {"tenant":"acme"}' 'call favourite {}' \
  'call count {"steps":3}' 'abort 350 call count {"steps":30}' 'call grow {}' tools resources \
  'request resources/read {"uri":"note://counter"}'

# 2025-11-25 and the legacy HTTP+SSE transport (npm server-everything).
EVERYTHING=$ROOT/tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js
start_cmd=(node -r "$ROOT/tests/support/loopback.cjs" "$EVERYTHING" streamableHttp)
record everything-2025-11-25 "http://127.0.0.1:$PORT/mcp" \
  tools 'call echo {"message":"hi"}' resources \
  'abort 1700 call trigger-long-running-operation {"duration":5,"steps":10}' restart 'call echo {"message":"again"}'
start_cmd=(node -r "$ROOT/tests/support/loopback.cjs" "$EVERYTHING" sse)
record everything-2024-11-05 "http://127.0.0.1:$PORT/sse" tools 'call echo {"message":"hi"}'
