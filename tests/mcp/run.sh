#!/usr/bin/env bash
# MCP end to end: the official MCP Python SDK (`mcp` from PyPI, installed into target/mcp-venv)
# drives `concord serve` over Streamable HTTP and `concord mcp` over stdio, on SQLite and, when
# a server is reachable, on PostgreSQL (a fresh database, dropped after). Each host
# configuration snippet in examples/mcp is run too, launched or connected as its host would.
# With CI=true a missing PostgreSQL fails instead of being skipped.
#   PG_URL  server to use (default postgres://postgres@127.0.0.1:5432)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The SDK version the tests were written against; bump it deliberately.
MCP_SDK_VERSION=2.3.0
venv=target/mcp-venv
if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_SDK_VERSION'" 2>/dev/null; then
  echo "== creating $venv with mcp==$MCP_SDK_VERSION"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION"
fi

cargo build --quiet --bin concord
bin="${CARGO_TARGET_DIR:-target}/debug/concord"

tmp=$(mktemp -d)
pg_url=${PG_URL:-postgres://postgres@127.0.0.1:5432}
hostport=${pg_url#*@}
hostport=${hostport%%/*}
host=${hostport%%:*}
port=${hostport##*:}
[ "$port" = "$hostport" ] && port=5432
db=""
cleanup() {
  rm -rf "$tmp"
  if [ -n "$db" ]; then
    psql -q "$pg_url/postgres" -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

echo "== MCP on SQLite"
"$venv/bin/python" tests/mcp/test_mcp.py --bin "$bin" --database-url "sqlite://$tmp/concord.db"

if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  db="concord_mcp_$(date +%s)_$$"
  psql -q "$pg_url/postgres" -c "create database $db"
  echo "== MCP on PostgreSQL ($host:$port, database $db)"
  "$venv/bin/python" tests/mcp/test_mcp.py --bin "$bin" --database-url "$pg_url/$db"
elif [ "${CI:-}" = "true" ]; then
  echo "PostgreSQL is not reachable at $host:$port and CI=true: failing instead of skipping" >&2
  exit 1
else
  echo "== PostgreSQL not reachable at $host:$port: MCP tests ran on SQLite only"
fi
