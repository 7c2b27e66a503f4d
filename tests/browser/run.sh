#!/usr/bin/env bash
# Browser tests of the review console: Chromium (Debian's package) driven by Playwright (from
# PyPI, in a virtualenv under target/), against a real concord on SQLite and, when one is
# reachable, PostgreSQL (a fresh database per run, dropped after). Installs what is missing.
# Without CI=true a machine that cannot install the browser skips; with CI=true it fails.
# Screenshots of the console go to docs/ from the SQLite run.
#   PG_URL    server to use (default postgres://postgres@127.0.0.1:5432)
#   CHROMIUM  browser binary (default /usr/bin/chromium)
#   extra arguments go to pytest (e.g. -k live -x)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

skip_or_fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "browser tests: $1 and CI=true: failing" >&2
    exit 1
  fi
  echo "== browser tests skipped: $1"
  exit 0
}

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "== installing chromium"
  { apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }; } \
    >/dev/null 2>&1 || skip_or_fail "chromium could not be installed"
fi

venv=$root/target/browser-venv
if ! "$venv/bin/python" -c "import playwright, pytest" 2>/dev/null; then
  echo "== installing Playwright and pytest into $venv"
  rm -rf "$venv"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q playwright pytest; } \
    || skip_or_fail "Playwright could not be installed"
fi

echo "== building concord"
cargo build --bin concord
bin="${CARGO_TARGET_DIR:-$root/target}/debug/concord"

work=$(mktemp -d)
pg_url=${PG_URL:-postgres://postgres@127.0.0.1:5432}
hostport=${pg_url#*@}
hostport=${hostport%%/*}
host=${hostport%%:*}
port=${hostport##*:}
[ "$port" = "$hostport" ] && port=5432
pg_dbs=()
cleanup() {
  for db in "${pg_dbs[@]}"; do
    psql -q "$pg_url/postgres" -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

run() { # kind url keyed_url policies_url [screenshot dir]
  echo "== browser tests on $1"
  CONCORD_BIN=$bin CHROMIUM=$chromium CONCORD_DATABASE_URL=$2 CONCORD_DATABASE_URL_KEYED=$3 \
    CONCORD_DATABASE_URL_POLICIES=$4 SCREENSHOT_DIR=${5:-} "$venv/bin/python" -m pytest \
    -p no:cacheprovider -q "$root/tests/browser" "${@:6}"
}

run sqlite "sqlite://$work/console.db" "sqlite://$work/console-keyed.db" \
  "sqlite://$work/console-policies.db" "$root/docs" "$@"

if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  base="concord_browser_$(date +%s)_$$"
  for db in "$base" "${base}_keyed" "${base}_policies"; do
    psql -q "$pg_url/postgres" -c "create database $db"
    pg_dbs+=("$db")
  done
  run postgres "$pg_url/$base" "$pg_url/${base}_keyed" "$pg_url/${base}_policies" "" "$@"
elif [ "${CI:-}" = "true" ]; then
  echo "browser tests: PostgreSQL is not reachable at $host:$port and CI=true: failing" >&2
  exit 1
else
  echo "== browser tests: PostgreSQL not reachable at $host:$port: SQLite only"
fi
