#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 (Debian's postgresql package) for the session
# tests and `serve` replicas. Prints its connection URL when it accepts connections.
#
#   scripts/postgres_test_server.sh [PORT]        (default 55432)
#
# The cluster lives in a fresh folder owned by the postgres user (PGDATA, default
# /tmp/empathygraph-pg-PORT), so it never touches a cluster the machine already runs. As root
# it runs the server as the postgres user; as another user, as that user. Stop it with
#   kill "$(cat /tmp/empathygraph-pg-PORT.pid)"
set -euo pipefail
PORT=${1:-55432}
DATA=${PGDATA:-/tmp/empathygraph-pg-$PORT}
LOG=/tmp/empathygraph-pg-$PORT.log
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed (Debian: apt-get install -y postgresql)" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_owner() { runuser -u postgres -- "$@"; }
  OWNER=postgres
else
  as_owner() { "$@"; }
  OWNER=$(id -un)
fi

if [ -f "$DATA/postmaster.pid" ]; then  # a server of an earlier run: stop it before its folder goes
  as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
fi
rm -rf "$DATA"
mkdir -p "$DATA"
chown "$OWNER" "$DATA"
chmod 700 "$DATA"
: >"$LOG"
chown "$OWNER" "$LOG"
as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >"$LOG" 2>&1
as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
  -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
head -1 "$DATA/postmaster.pid" > "/tmp/empathygraph-pg-$PORT.pid"
as_owner "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres empathygraph
echo "postgresql://postgres@127.0.0.1:$PORT/empathygraph"
