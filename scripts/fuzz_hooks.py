"""What scripts/fuzz-api.sh adds to schemathesis (loaded through SCHEMATHESIS_HOOKS): one rule
between query parameters for the generator, and one check.

The document declares, on each operation that has them, the 422s that depend on stored state
rather than on the request's shape (a cursor the list did not issue, an id naming no node,
another embedding dimension), with the pointers they name under `x-state-dependent`. The
fuzz configuration lets `positive_data_acceptance` expect 422 on those operations only; this
check takes back what that would otherwise let through: a schema-valid request refused with
422 passes only when every error it names is one of those pointers.
"""

import fnmatch

import schemathesis


@schemathesis.hook
def filter_query(ctx, query):
    """`GET /nodes`: `q` is not combined with `as_of` or `known_at` (the document says so on
    both; OpenAPI has no way to state a rule between two query parameters)."""
    op = ctx.operation
    if op is None or op.method.upper() != "GET" or op.path != "/nodes" or not query:
        return True
    return query.get("q") is None or (
        query.get("as_of") is None and query.get("known_at") is None
    )


@schemathesis.check
def refused_only_for_stored_state(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    declared = (
        case.operation.definition.raw.get("responses", {}).get("422", {}).get("x-state-dependent")
    )
    if not declared:
        # No state-dependent 422 here: positive_data_acceptance fails the refusal itself.
        return None
    try:
        errors = response.json().get("errors") or []
    except ValueError:
        errors = []
    pointers = [e.get("pointer") for e in errors]

    def is_declared(pointer):
        # A declared `*` stands for an item's index (`/nodes/*/embedding`).
        return any(
            pointer == d or ("*" in d and fnmatch.fnmatchcase(pointer or "", d))
            for d in declared
        )

    if not pointers or not all(is_declared(p) for p in pointers):
        raise AssertionError(
            "Schema-valid request refused for its shape, not for stored state: "
            f"pointers {pointers}, the document's state-dependent ones {declared}"
        )
    return None
