#!/usr/bin/env bash
# The TypeScript client's checks (make test-typescript): install exactly the lockfile,
# typecheck, then run the tests against a real server and AI agent (the project venv's
# `mercado`, so `make setup` must have run).
set -euo pipefail
cd "$(dirname "$0")/../clients/typescript"

npm ci --no-audit --no-fund --loglevel=error
npm run --silent typecheck
npx --no-install tsc --noEmit -p tsconfig.browser.json  # the browser-safe part needs no Node module
npm test --silent
