#!/usr/bin/env bash
# Generates the Python code from proto/. The output is never edited by hand:
# old output is deleted first, then written anew.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export PATH="$(dirname "$PY"):$PATH"  # the protoc-gen-mypy plugins

out=clients/python/gen
rm -rf "$out"
mkdir -p "$out"
"$PY" -m grpc_tools.protoc -I proto \
  --python_out="$out" --grpc_python_out="$out" \
  --mypy_out="$out" --mypy_grpc_out="$out" \
  proto/mercado/v1/*.proto
# Regular packages, so setuptools and mypy find them.
touch "$out/mercado/__init__.py" "$out/mercado/v1/__init__.py"
# Typed (PEP 561): type checkers read the stubs beside the modules.
touch "$out/mercado/py.typed"
