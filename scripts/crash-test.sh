#!/usr/bin/env bash
# Crash safety: runs writers and resolvers (scripts/crash_client.py, standard-library Python)
# against a release build, kills the server with SIGKILL at random moments, restarts it, and
# finally checks that every acknowledged write (201) and resolution (200) is present, that
# retries replay, and that `concord check` finds no violation. On SQLite and on PostgreSQL
# (a scratch database, created and dropped). See docs/reliability.md.
#
#   scripts/crash-test.sh                    # 20 kill cycles on each database
#   scripts/crash-test.sh --cycles 100 --db sqlite --seed 7
#
# Environment: PG_URL (default postgres://postgres@127.0.0.1:5432), CRASH_LOG (server log file).
set -euo pipefail
cd "$(dirname "$0")/.."

cycles=20
dbs="sqlite postgres"
seed=
while [ $# -gt 0 ]; do
  case "$1" in
    --cycles) cycles=$2; shift 2 ;;
    --db) dbs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

echo "== building concord (release)"
cargo build --quiet --release --bin concord
bin=${CARGO_TARGET_DIR:-target}/release/concord
pg_url=${PG_URL:-postgres://postgres@127.0.0.1:5432}

work=$(mktemp -d)
pg_db="concord_crash_$(date +%s)_$$"
cleanup() {
  rm -rf "$work"
  psql -q "$pg_url/postgres" -c "drop database if exists $pg_db with (force)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

status=0
for db in $dbs; do
  case "$db" in
    sqlite) url="sqlite://$work/crash.db" ;;
    postgres)
      psql -q "$pg_url/postgres" -c "create database $pg_db"
      url="$pg_url/$pg_db" ;;
    *) echo "unknown database: $db" >&2; exit 2 ;;
  esac
  echo "== $db: $cycles kill cycles"
  python3 scripts/crash_client.py "$bin" "$url" "$cycles" $seed || status=1
done
exit "$status"
