#!/usr/bin/env bash
# Generates docs/api.md, the API reference, from the comments of proto/ (make generate).
# protoc-gen-doc is a Go module pinned by the `tool` line of scripts/api-docs/go.mod, built into
# scripts/api-docs/.bin (gitignored); protoc comes from the Python venv's grpcio-tools. Its markdown
# template is given as a file (scripts/api-docs/api.md.tmpl), which renders as plain text: its
# built-in markdown output escapes characters as HTML does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY=${PY:-$root/.venv/bin/python}

if ! command -v go >/dev/null; then
  echo "generate-docs: the Go toolchain is needed to build protoc-gen-doc (https://go.dev/dl/)" >&2
  exit 1
fi
bin=$root/scripts/api-docs/.bin
mkdir -p "$bin"
(cd scripts/api-docs && go build -o "$bin/" github.com/pseudomuto/protoc-gen-doc/cmd/protoc-gen-doc)
"$PY" -m grpc_tools.protoc -I proto \
  --plugin=protoc-gen-doc="$bin/protoc-gen-doc" \
  --doc_out=docs --doc_opt=scripts/api-docs/api.md.tmpl,api.md \
  proto/mercado/v1/*.proto
