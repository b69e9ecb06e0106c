#!/usr/bin/env bash
# Installs the PostgreSQL server (Debian's postgresql package) that the tests marked `postgres` start
# throwaway clusters of (server/bench/postgres.py). Prints nothing when it is already installed.
set -euo pipefail

if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "install-postgres: no PostgreSQL server in /usr/lib/postgresql, and no apt-get to install one;" \
    "install PostgreSQL's server binaries (initdb, pg_ctl, postgres) there" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "install-postgres: installing the postgresql package needs root, and there is no sudo" >&2
    exit 1
  fi
  as_root=(sudo)
fi

echo "install-postgres: installing the postgresql package (apt-get)" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null

if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  echo "install-postgres: the postgresql package is installed, but there is no /usr/lib/postgresql/*/bin/initdb" >&2
  exit 1
fi
