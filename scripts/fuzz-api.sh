#!/usr/bin/env bash
# Fuzzes the HTTP API from its own OpenAPI document with schemathesis: builds concord, starts it
# on a scratch SQLite database on a free loopback port, and checks every generated request for
# server errors, undocumented status codes, content types and response bodies that do not match
# their schema. Exits non-zero on any failure. See docs/reliability.md.
#
#   scripts/fuzz-api.sh                       # the short run CI does (20 examples per operation)
#   scripts/fuzz-api.sh --max-examples 500    # a long run (about 10-20 minutes)
#   scripts/fuzz-api.sh --seed 42             # reproduce a run
#
# Other arguments go to `schemathesis run` unchanged. Environment:
#   FUZZ_DATABASE_URL  database to fuzz (default: a scratch SQLite file, removed afterwards)
#   FUZZ_PROFILE       cargo profile to build and run (default: dev; `release` is faster to fuzz)
#   SCHEMATHESIS_VERSION  pinned version installed into .venv (default below)
set -euo pipefail
cd "$(dirname "$0")/.."

max_examples=20
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max-examples) max_examples=$2; shift 2 ;;
    --max-examples=*) max_examples=${1#*=}; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

version=${SCHEMATHESIS_VERSION:-4.32.5}
if ! .venv/bin/schemathesis --version 2>/dev/null | grep -q "$version"; then
  echo "== installing schemathesis $version into .venv"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$version"
fi

profile=${FUZZ_PROFILE:-dev}
echo "== building concord ($profile)"
cargo build --quiet --profile "$profile" --bin concord
bin=target/$([ "$profile" = dev ] && echo debug || echo "$profile")/concord

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
db=${FUZZ_DATABASE_URL:-sqlite://$work/fuzz.db}
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

CONCORD_LOG=warn "$bin" serve --database-url "$db" --bind "127.0.0.1:$port" >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.1
done

echo "== schemathesis: $max_examples examples per operation against 127.0.0.1:$port"
status=0
# The long poll and the event stream hold their connection open by design: not fuzzed.
.venv/bin/schemathesis run openapi/openapi.json \
  --url "http://127.0.0.1:$port" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --exclude-path-regex '^/(events|conflicts/wake)$' \
  --max-examples "$max_examples" \
  --request-timeout 20 \
  --workers 1 \
  --no-color \
  "${args[@]}" || status=$?

if grep -q "panicked" "$work/server.log"; then
  echo "== the server panicked:" >&2
  grep -A3 "panicked" "$work/server.log" >&2
  status=1
fi
exit "$status"
