#!/usr/bin/env bash
# `make run`: the server with its embedded defaults and one AI agent, and how to play.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
HOST=${MERCADO_HOST:-127.0.0.1}
PORT=${MERCADO_PORT:-50051}
SERVER=$HOST:$PORT

"$BIN/mercado" serve --host "$HOST" --port "$PORT" &
server=$!
trap 'kill $agent $server 2>/dev/null; wait' EXIT INT TERM
# The agent retries until the server answers.
"$BIN/mercado" ai --server "$SERVER" --log-level warning &
agent=$!

cat <<TEXT

  mercado is running: server on $SERVER (database ${MERCADO_DB:-mercado.db}), one AI agent.
  Ctrl-C stops both.

  Play the AI in another terminal:
    $BIN/mercado play --server $SERVER --players 2 --bots medium
  (levels: easy, medium, hard; --players 3 --bots easy,hard for more seats)

  Or play a friend: one creates the match, the other joins with the id it shows:
    $BIN/mercado play --server $SERVER --players 2
    $BIN/mercado play --server $SERVER --match MATCH_ID

TEXT
wait $server
