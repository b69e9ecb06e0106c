#!/usr/bin/env bash
# Generates the Go code from proto/ into clients/go/gen. The output is never edited by hand:
# old output is deleted first, then written anew.
#
# protoc comes from the Python venv's grpcio-tools (pinned in pyproject.toml); the plugins
# protoc-gen-go and protoc-gen-go-grpc are Go modules pinned by the `tool` lines of
# clients/go/go.mod, built into clients/go/.bin (gitignored).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY=${PY:-$root/.venv/bin/python}

if ! command -v go >/dev/null; then
  echo "generate-go: the Go toolchain is needed to build protoc-gen-go (https://go.dev/dl/)" >&2
  exit 1
fi
bin=$root/clients/go/.bin
mkdir -p "$bin"
(
  cd clients/go
  go build -o "$bin/" google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc
)

out=clients/go/gen
rm -rf "$out"
mkdir -p "$out"
"$PY" -m grpc_tools.protoc -I proto \
  --plugin=protoc-gen-go="$bin/protoc-gen-go" \
  --plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
  --go_out="$out" --go_opt=paths=source_relative \
  --go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
  proto/mercado/v1/*.proto
