#!/usr/bin/env bash
# The API stays backward compatible within v1: `buf breaking` (pinned in scripts/buf) checks
# proto/ against the last release's API, kept as a buf image in proto/releases/vX.Y.Z.json,
# for the wire and for generated code (proto/buf.yaml). The tests run it (tests/test_api_compatibility.py).
#
#   scripts/check-api.sh [PROTO_DIR]   check proto/ (or another copy of it)
#   scripts/check-api.sh --record      at a release: keep VERSION's API as the new baseline
set -euo pipefail
cd "$(dirname "$0")/.."
tools=scripts/buf
buf=$tools/node_modules/.bin/buf
if [ ! -x "$buf" ] || [ "$tools/package-lock.json" -nt "$tools/node_modules/.package-lock.json" ]; then
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

if [ "${1:-}" = "--record" ]; then
  "$buf" build proto --exclude-source-info -o "proto/releases/v$(tr -d '[:space:]' < VERSION).json"
  exit
fi
proto=${1:-proto}
last=$(ls proto/releases/v*.json | sort -V | tail -1)
"$buf" breaking "$proto" --against "$last"
echo "the API in $proto is backward compatible with $(basename "$last" .json)"
