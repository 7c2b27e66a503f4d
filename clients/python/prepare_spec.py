"""Adapt a copy of concord's OpenAPI document to what openapi-python-client can generate.

The committed document stays as the server produces it; generate.sh feeds the generator the
output of this script instead. One construct needs it: an object schema with its own
`properties` and a `oneOf` whose branches only narrow those same properties (which
combinations of `resolution`, `merged_content` and `reason` go together; `new_node_id` or
`new_content`). openapi-python-client turns such a schema into one class per branch and drops
the shared properties, so `old_node_id`, `note` or `resolved_by` could not be sent at all.
Removing the `oneOf` keeps every field; the server still enforces the combinations (422).

A branch that declares a property the schema itself does not is refused rather than dropped,
so a future change to the document cannot lose a field silently.

Usage: python prepare_spec.py IN.json OUT.json
"""

from __future__ import annotations

import json
import sys
from typing import Any


def flatten_narrowing_one_of(name: str, schema: dict[str, Any]) -> bool:
    branches = schema.get("oneOf")
    if not isinstance(branches, list) or "properties" not in schema:
        return False
    declared = set(schema["properties"])
    for branch in branches:
        extra = set(branch) - {"properties", "required"}
        unknown = set(branch.get("properties", {})) - declared
        if extra or unknown:
            raise SystemExit(
                f"prepare_spec: schema {name}: a oneOf branch has {sorted(extra | unknown)}, "
                "which the flattening would lose; extend prepare_spec.py for it"
            )
    del schema["oneOf"]
    return True


def main() -> None:
    source, target = sys.argv[1:3]
    with open(source, encoding="utf-8") as f:
        spec = json.load(f)
    changed = [
        name
        for name, schema in sorted(spec["components"]["schemas"].items())
        if flatten_narrowing_one_of(name, schema)
    ]
    with open(target, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"prepare_spec: oneOf folded into the properties of {', '.join(changed) or 'nothing'}")


if __name__ == "__main__":
    main()
