#!/usr/bin/env bash
# Installs the servers the tests start themselves: PostgreSQL (Debian's postgresql package), whose
# throwaway clusters the tests marked `postgres` run on (server/bench/postgres.py), and HAProxy
# (Debian's haproxy package), which the load-balancer tests put in front of the nodes
# (tests/e2e/haproxy.py). Prints nothing when both are installed already.
set -euo pipefail

has_postgres() { compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }
has_haproxy() { PATH="$PATH:/usr/sbin" command -v haproxy >/dev/null; }

missing=()
has_postgres || missing+=(postgresql)
has_haproxy || missing+=(haproxy)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "install-test-servers: ${missing[*]} missing, and no apt-get to install them; install PostgreSQL's" \
    "server binaries (initdb, pg_ctl, postgres) in /usr/lib/postgresql/*/bin and HAProxy 2.6 or newer" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "install-test-servers: installing ${missing[*]} needs root, and there is no sudo" >&2
    exit 1
  fi
  as_root=(sudo)
fi

echo "install-test-servers: installing ${missing[*]} (apt-get)" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

if ! has_postgres; then
  echo "install-test-servers: the postgresql package is installed, but there is no /usr/lib/postgresql/*/bin/initdb" >&2
  exit 1
fi
if ! has_haproxy; then
  echo "install-test-servers: the haproxy package is installed, but there is no haproxy program" >&2
  exit 1
fi
