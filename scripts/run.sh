#!/usr/bin/env bash
# `make run`: the server with its embedded defaults, and how to connect.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
HOST=${MERCADO_HOST:-127.0.0.1}
PORT=${MERCADO_PORT:-50051}

cat <<TEXT
mercado server on $HOST:$PORT (database: ${MERCADO_DB:-mercado.db}); Ctrl-C stops it.

Play in another terminal:
  $BIN/mercado play --server $HOST:$PORT --players 2
and have a friend join with the match id it prints:
  $BIN/mercado play --server $HOST:$PORT --match MATCH_ID

TEXT
exec "$BIN/mercado" serve --host "$HOST" --port "$PORT"
