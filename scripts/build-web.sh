#!/usr/bin/env bash
# Builds the browser page (clients/web) into clients/web/dist, which `mercado serve` serves
# on its web port (make run calls this). Installs the lockfile's packages when they are
# missing or stale; does nothing when dist/ is newer than every source of the page, unless
# --force. The page compiles in the TypeScript client's source (clients/typescript/src).
set -euo pipefail
cd "$(dirname "$0")/../clients/web"
if ! command -v npm >/dev/null; then
  echo "build-web: npm is not installed (the page needs Node.js 20.19 or newer to build)" >&2
  exit 1
fi
built=dist/index.html
sources=(index.html package.json package-lock.json vite.config.ts tsconfig.json src ../typescript/src)
if [ "${1:-}" != "--force" ] && [ -f "$built" ] && [ -z "$(find "${sources[@]}" -newer "$built" -print -quit)" ]; then
  exit 0
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npx --no-install vite build --logLevel warn
echo "build-web: built clients/web/dist"
