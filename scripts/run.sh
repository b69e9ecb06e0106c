#!/usr/bin/env bash
# `make run`: the server with its embedded defaults and one AI agent, and how to play
# (in the browser on the web port, or in the terminal).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
HOST=${MERCADO_HOST:-127.0.0.1}
PORT=${MERCADO_PORT:-50051}
SERVER=$HOST:$PORT
WEB_PORT=${MERCADO_WEB_PORT:-8080}  # -1: no browser page

# The page is built from clients/web when it is missing or older than its sources.
if [ "$WEB_PORT" != "-1" ] && ! scripts/build-web.sh; then
  echo "run: the browser page could not be built (see clients/web/README.md); its address will say so" >&2
fi

# Bot seats are claimed with the server's agent key: a fresh one for this run, unless one is set.
export MERCADO_AGENT_KEY=${MERCADO_AGENT_KEY:-$("$BIN/python" -c 'import secrets; print(secrets.token_urlsafe(24))')}

# Anonymous seats for quick local games; the bots start the ladder at their measured ratings
# (ai/bot-ratings.json: mercado arena --rate).
"$BIN/mercado" serve --host "$HOST" --port "$PORT" --web-port "$WEB_PORT" --allow-anonymous \
  --bot-ratings ai/bot-ratings.json &
server=$!
agent=
# Ctrl-C (or SIGTERM) stops both and is a clean exit; a server that stops by itself is not.
stop() {
  trap - INT TERM EXIT
  kill $agent $server 2>/dev/null || true
  wait
  exit 0
}
trap stop INT TERM
trap 'kill $agent $server 2>/dev/null || true' EXIT
# The agent retries until the server answers.
"$BIN/mercado" ai --server "$SERVER" --log-level warning &
agent=$!

cat <<TEXT

  mercado is running: server on $SERVER (database ${MERCADO_DB:-mercado.db}), one AI agent.
  Ctrl-C stops both.
TEXT
case $WEB_PORT in
  -1) ;;
  0) printf '\n  Play the AI in your browser: the address is http://%s:WEB_PORT/ (web_port in the server log)\n' "$HOST" ;;
  *) printf '\n  Play the AI in your browser: http://%s:%s/\n' "$HOST" "$WEB_PORT" ;;
esac
cat <<TEXT

  Play the AI in another terminal:
    $BIN/mercado play --server $SERVER --players 2 --bots medium
  (levels: easy, medium, hard, expert; --players 3 --bots easy,hard for more seats;
   --game oregano or --game leilao for the other games)

  Or a quick match: someone of your rating, or the AI after 15 s:
    $BIN/mercado play --server $SERVER --quick --players 2 --allow-ai

  Or play a friend: one creates the match, the other joins with the id it shows
  (a friend at this computer joins as a player of their own: add --as NAME):
    $BIN/mercado play --server $SERVER --players 2
    $BIN/mercado play --server $SERVER --match MATCH_ID --as NAME

  Left a game? Go back into it:
    $BIN/mercado play --server $SERVER --resume

TEXT
wait $server
