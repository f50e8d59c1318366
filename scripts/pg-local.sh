#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and examples: data folder in a temporary directory,
# listening on 127.0.0.1 only, on a free port, trust authentication for the test role
# `replaygate` (a superuser of this cluster only) and a password role `replaygate_pw`.
#
#   scripts/pg-local.sh start [DIR]   # starts a cluster in DIR (default: a new mktemp -d); prints
#                                     # DATABASE_URL=postgres://replaygate@127.0.0.1:PORT/replaygate
#                                     # and PG_LOCAL_DIR=DIR on stdout
#   scripts/pg-local.sh stop DIR      # stops the cluster of DIR and deletes DIR
#
# initdb and postgres refuse to run as root: as root, the cluster runs as the `postgres` system
# user (Debian's package creates it). The binaries are found under /usr/lib/postgresql/*/bin
# (not on PATH on Debian), or on PATH, or in $PG_BIN.
set -euo pipefail

find_bin() {
  if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/initdb" ]]; then echo "$PG_BIN"; return; fi
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n "$newest" && -x "$newest/initdb" ]]; then echo "$newest"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  echo "pg-local.sh: initdb not found (install the postgresql package, or set PG_BIN)" >&2
  exit 1
}

# Runs a command as the cluster's owner: ourselves, or `postgres` when we are root.
as_owner() {
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

cmd="${1:-}"
case "$cmd" in
  start)
    BIN=$(find_bin)
    DIR="${2:-$(mktemp -d "${TMPDIR:-/tmp}/replaygate-pg-XXXXXX")}"
    mkdir -p "$DIR"
    if [[ "$(id -u)" == "0" ]]; then
      id postgres >/dev/null 2>&1 || { echo "pg-local.sh: running as root needs the 'postgres' system user" >&2; exit 1; }
      chown postgres "$DIR"
      chmod 700 "$DIR"
    fi
    PORT=$(free_port)
    as_owner "$BIN/initdb" -D "$DIR/data" -U replaygate --auth-local=trust --auth-host=trust \
      --encoding=UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
    # The password role is checked with scram over 127.0.0.1; every other role is trusted.
    as_owner sh -c "printf '%s\n' \
      'host all replaygate_pw 127.0.0.1/32 scram-sha-256' \
      'local all all trust' \
      'host all all 127.0.0.1/32 trust' >'$DIR/data/pg_hba.conf'"
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60" \
      start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
    as_owner "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U replaygate -d postgres -qAt -v ON_ERROR_STOP=1 \
      -c "CREATE DATABASE replaygate" \
      -c "CREATE ROLE replaygate_pw LOGIN PASSWORD 'right-password'" >/dev/null
    echo "$PORT" >"$DIR/port"
    echo "DATABASE_URL=postgres://replaygate@127.0.0.1:$PORT/replaygate"
    echo "PG_LOCAL_DIR=$DIR"
    ;;
  stop)
    DIR="${2:?usage: pg-local.sh stop DIR}"
    BIN=$(find_bin)
    if [[ -f "$DIR/data/postmaster.pid" ]]; then
      as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: scripts/pg-local.sh start [DIR] | stop DIR" >&2
    exit 2
    ;;
esac
