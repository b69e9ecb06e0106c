#!/usr/bin/env bash
# Generates the TypeScript code (protobuf-es v2 messages and service descriptors,
# used by Connect v2) from proto/ into clients/typescript/src/gen. The output is
# never edited by hand: old output is deleted first, then written anew.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
package=clients/typescript

# The plugin is the version pinned in package-lock.json.
if [ ! -x "$package/node_modules/.bin/protoc-gen-es" ]; then
  (cd "$package" && npm ci --no-audit --no-fund --loglevel=error)
fi

out=$package/src/gen
rm -rf "$out"
mkdir -p "$out"
# import_extension=js: ES module imports that Node (NodeNext), tsx and bundlers all resolve.
"$PY" -m grpc_tools.protoc -I proto \
  --plugin=protoc-gen-es="$package/node_modules/.bin/protoc-gen-es" \
  --es_out="$out" --es_opt=target=ts,import_extension=js \
  proto/mercado/v1/*.proto
