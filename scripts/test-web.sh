#!/usr/bin/env bash
# `make test-web`: the browser page (clients/web). Install exactly the lockfile, typecheck,
# build, then the end-to-end test: headless Chromium (Debian's /usr/bin/chromium, driven by
# playwright-core) plays a match against a real `mercado serve` and AI agent from the
# project venv (`make setup`). Chromium is installed with apt when missing and this is root;
# otherwise that test is skipped, saying how to install it.
set -euo pipefail
cd "$(dirname "$0")/../clients/web"

if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq -o Dpkg::Use-Pty=0 chromium fonts-dejavu-core >/dev/null
fi

npm ci --no-audit --no-fund --loglevel=error
npm run --silent typecheck
../../scripts/build-web.sh --force
npm test --silent
