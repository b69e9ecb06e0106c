#!/usr/bin/env bash
# `make run`: the server with its embedded defaults and one AI agent, and, once the server listens,
# how to play (in the browser on the web port, or in the terminal).
#
# The server's log (JSON lines) goes to server.log in the user's data directory, where `mercado play`
# keeps its seats too (the previous run's is server.log.1); the terminal shows only its warnings.
# Asking for a log level (`make run ARGS="--log-level info"`, or MERCADO_LOG_LEVEL) brings the whole
# log back to the terminal, as `mercado serve` writes it. Arguments go to `mercado serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
WEB_PORT=${MERCADO_WEB_PORT:-8080}  # -1: no browser page

whole_log=${MERCADO_LOG_LEVEL:+yes}
for argument in "$@"; do
  case $argument in --log-level | --log-level=*) whole_log=yes ;; esac
done

# The page is built from clients/web when it is missing or older than its sources.
if [ "$WEB_PORT" != "-1" ] && ! scripts/build-web.sh; then
  echo "run: the browser page could not be built (see clients/web/README.md); its address will say so" >&2
fi

# Bot seats are claimed with the server's agent key: a fresh one for this run, unless one is set.
export MERCADO_AGENT_KEY=${MERCADO_AGENT_KEY:-$("$BIN/python" -c 'import secrets; print(secrets.token_urlsafe(24))')}

DATA=$("$BIN/python" -c 'import platformdirs; print(platformdirs.user_data_path("mercado"))')
LOG_FILE=$DATA/server.log
mkdir -p "$DATA"
if [ -f "$LOG_FILE" ]; then mv -f "$LOG_FILE" "$LOG_FILE.1"; fi

# Anonymous seats for quick local games; the bots start each game's ladder at their ratings measured in
# that game (ai/bot-ratings/GAME.json: mercado arena --round-robin --rate).
serve=("$BIN/mercado" serve --web-port "$WEB_PORT" --allow-anonymous --bot-ratings ai/bot-ratings "$@")
if [ -n "$whole_log" ]; then
  # The log on the terminal, and in the file too (tee -i: Ctrl-C stops the server, which then ends it).
  "${serve[@]}" 2> >(tee -i -a "$LOG_FILE" >&2) &
else
  "${serve[@]}" --log-file "$LOG_FILE" &
fi
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

# Until the server says in its log where it listens: "HOST PORT WEB_PORT" ("-" for no page).
if ! listening=$("$BIN/python" - "$LOG_FILE" "$server" <<'PYTHON'
import json
import os
import sys
import time

path, server = sys.argv[1], int(sys.argv[2])
while True:
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            for line in log:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("message") == "listening":
                    print(record["host"], record["port"], record.get("web_port") or "-")
                    sys.exit(0)
    except FileNotFoundError:
        pass
    try:
        os.kill(server, 0)
    except ProcessLookupError:
        sys.exit(1)  # it stopped: its warnings say why
    time.sleep(0.2)
PYTHON
); then
  trap - EXIT
  wait $server || exit $?
  exit 1
fi
read -r HOST PORT LISTENING_WEB_PORT <<<"$listening"
SERVER=$HOST:$PORT
# The agent retries until the server answers.
"$BIN/mercado" ai --server "$SERVER" --log-level warning &
agent=$!

PLAY="$BIN/mercado play"
if [ "$SERVER" != "127.0.0.1:50051" ]; then PLAY="$PLAY --server $SERVER"; fi
if [ -n "$whole_log" ]; then shown="here, and in $LOG_FILE"; else shown="in $LOG_FILE (warnings show here)"; fi
echo
echo "  mercado is running: server $SERVER, one AI agent. Ctrl-C stops both."
echo "  The server's log is $shown."
echo
terminal="Play in a terminal"
if [ "$LISTENING_WEB_PORT" != "-" ]; then
  echo "  Play in your browser: http://$HOST:$LISTENING_WEB_PORT/"
  terminal="Or in a terminal"
fi
cat <<TEXT
  $terminal: the AI (easy, medium, hard, expert), or someone of your rating:
    $PLAY --bots medium
    $PLAY --quick
  a friend, who joins with the id shown (--as NAME: a friend at this computer):
    $PLAY --players 2
    $PLAY --match ID --as NAME
  a game you left, and the other games (or --game leilao):
    $PLAY --resume
    $PLAY --game oregano --bots easy

TEXT
wait $server
