#!/usr/bin/env bash
# `make test-go`: vet and test the Go client (clients/go). Its tests start the project's
# own server and AI agent from .venv (`make setup`); Go modules come from the module proxy.
set -euo pipefail
cd "$(dirname "$0")/../clients/go"
if ! command -v go >/dev/null; then
  echo "test-go: the Go toolchain is not installed (https://go.dev/dl/)" >&2
  exit 1
fi
go mod download
go vet ./...
go test -count=1 -timeout "${GO_TEST_TIMEOUT:-5m}" ./...
