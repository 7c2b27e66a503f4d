#!/usr/bin/env bash
# Regenerates the generated half of the client (concord_client/_generated) from the committed
# OpenAPI document with the pinned openapi-python-client (requirements-dev.txt). Works offline
# once the tools are installed. Never edit the output by hand: change generator.yaml or
# prepare_spec.py and run this again.
#   generate.sh [OUT_DIR]   write somewhere else (scripts/test-clients compares it with the
#                           committed copy)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spec="$here/../../openapi/openapi.json"
out=${1:-$here/concord_client/_generated}

# The output depends on both tools' versions (ruff formats it), so only the pinned ones run.
pinned() { sed -n "s/^$1==//p" "$here/requirements-dev.txt"; }
for tool in openapi-python-client ruff; do
  have=$("$tool" --version | awk '{print $NF}')
  if [ "$have" != "$(pinned "$tool")" ]; then
    echo "generate.sh: $tool $have found, $(pinned "$tool") pinned in requirements-dev.txt" >&2
    exit 1
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/prepare_spec.py" "$spec" "$work/openapi.json"
# The generator always warns that GET /events has no decodable 200 body: that is
# generator.yaml's content_type_overrides at work, so its report is shown only on failure.
if ! (cd "$work" && openapi-python-client generate --path openapi.json --meta none \
  --output-path "$work/_generated" --config "$here/generator.yaml") >"$work/log" 2>&1; then
  cat "$work/log" >&2
  exit 1
fi
if grep -q "WARNING" "$work/log" && grep "WARNING" "$work/log" | grep -qv "GET /events"; then
  cat "$work/log" >&2
  echo "generate.sh: unexpected generator warnings (above)" >&2
  exit 1
fi
find "$work/_generated" \( -name .ruff_cache -o -name __pycache__ \) -prune -exec rm -rf {} +
rm -rf "$out"
mkdir -p "$(dirname "$out")"
cp -R "$work/_generated" "$out"
