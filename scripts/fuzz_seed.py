#!/usr/bin/env python3
"""Seeds a running concord for scripts/fuzz-api.sh and writes the schemathesis configuration
that points generated requests at the seeded ids (standard library only).

Without seeds, every operation on `/nodes/{id}` or a conflict would get random UUIDs and
answer 404 ("missing test data"), and the resolve routes would never reach a resolution.
Ids are drawn from dictionaries with probability 0.85, so random ids are still tried.

The seeded ids also become request body examples in a copy of the OpenAPI document
(SPEC_OUT): the coverage phase builds its valid baseline from examples and does not apply the
configuration's body dictionaries, so without them every valid edge or manual conflict it
sends would name nodes that do not exist.

With FUZZ_SCOPE set (scripts/fuzz-api.sh --scoped), the seeded memories are of that scope,
another scope (`fuzz-other`) gets memories, conflicts, an edge and a report whose texts carry a
canary word, and an agent key of FUZZ_SCOPE (and `default`) is made for the run: CONFIG_OUT.key holds it and
CONFIG_OUT.marks the canary and every id of the other scope, which no response to that key
may contain (`--leaks`).

Usage: fuzz_seed.py BASE_URL CONFIG_OUT SPEC_IN SPEC_OUT [SEED]
       fuzz_seed.py --summary BASE_URL     (prints what the run did, from /metrics)
       fuzz_seed.py --leaks MARKS HAR      (fails when a response carries a mark)
"""

import http.client
import json
import os
import random
import sys
import urllib.parse

NODES = 40
DELETABLE = 30
CONFLICTS = 60
PROBABILITY = 0.85
# A memory's history outlives it by design (the document says so on both operations): a
# deleted node's versions answer 200, which `use_after_free` would take for a resource still
# served after its DELETE. Every other read of a deleted node stays under that check.
# A cancelled sweep stays readable too: its `DELETE` cancels it (the contract's word), and
# `GET /sweeps/{id}` then reports it `cancelled` with what it had done.
KEPT_AFTER_DELETE = ["get_version", "list_versions", "get_sweep"]
# Seconds an operation may take where the default limit is too short for the unoptimised
# build the fuzzer runs: a batch of 1,000 nodes judges up to 50,000 pairs, about ten seconds
# there and a fraction of one in a release build (BENCHMARKS.md).
SLOW = {"create_batch": 60}
# schemathesis's default expected statuses for positive_data_acceptance.
POSITIVE_EXPECTED = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]

TOPICS = [
    ("Deploy region", "The deploy region is us-east-1", "The deploy region is eu-west-1"),
    ("Cache size", "The cache size is 80 MB", "The cache size is 60 MB"),
    ("Retry policy", "Retries are enabled for writes", "Retries are no longer enabled"),
    ("Database", "We use PostgreSQL 15", "We switched to PostgreSQL 16 instead"),
]


class Api:
    def __init__(self, base):
        url = urllib.parse.urlparse(base)
        self.host, self.port = url.hostname, url.port

    def call(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"content-type": "application/json"} if body is not None else {}
        # The run's admin key (scripts/fuzz-api.sh), so the fuzzer's own POST /keys cannot lock
        # the seeding and the summary out.
        if os.environ.get("FUZZ_API_KEY"):
            headers["authorization"] = f"Bearer {os.environ['FUZZ_API_KEY']}"
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        res = conn.getresponse()
        text = res.read().decode()
        conn.close()
        return res.status, text

    def json(self, method, path, body=None, want=(200, 201)):
        status, text = self.call(method, path, body)
        if status not in want:
            sys.exit(f"seeding failed: {method} {path} -> {status} {text}")
        return json.loads(text)


SCOPE = os.environ.get("FUZZ_SCOPE")
OTHER_SCOPE = "fuzz-other"
CANARY = "zuluhotelbravo"


def in_scope(body, scope=None):
    scope = scope or SCOPE
    return {**body, "scope": scope} if scope else body


def node(api, rng, i):
    title, old, new = TOPICS[i % len(TOPICS)]
    text = old if rng.random() < 0.5 else new
    body = {"title": title, "body": f"{text} (seed {i})", "labels": ["seed", f"t{i % 4}"]}
    return api.json("POST", "/nodes?detect=false", in_scope(body))["node"]["id"]


def seed_other_scope(api):
    """Memories, conflicts, an edge and a report of another scope; returns its marks."""
    marks = [CANARY, f"src-{CANARY}"]

    def write(text):
        body = {"title": f"Region {CANARY}", "body": f"{text} ({CANARY})",
                "source": f"src-{CANARY}", "labels": [CANARY]}
        made = api.json("POST", "/nodes?detect=false", in_scope(body, OTHER_SCOPE))
        marks.append(made["node"]["id"])
        return made["node"]["id"]

    for resolve in (False, True):
        old, new = write("The region is eu-west-1"), write("The region is us-east-1")
        c = api.json("POST", "/conflicts", {"old_node_id": old, "new_node_id": new})["id"]
        marks.append(c)
        if resolve:
            api.json("POST", f"/conflicts/{c}/resolve", {"resolution": "new_is_current"})
    a, b = write("The cache TTL is 30 seconds"), write("The cache lives in Redis")
    edge = api.json("POST", "/edges", {"source_id": a, "target_id": b, "kind": "relates_to"})
    marks.append(edge["id"])
    report = api.json("POST", "/conflicts/check", {"topic": CANARY})
    marks.append(report["id"])
    return marks


def leaks(marks_file, har_file):
    """Fails when a response of the run (its headers or body) carries a mark."""
    with open(marks_file) as f:
        marks = [m for m in f.read().split() if m]
    with open(har_file) as f:
        entries = json.load(f)["log"]["entries"]
    found = []
    for e in entries:
        res = e["response"]
        seen = json.dumps(res.get("headers", [])) + (res.get("content", {}).get("text") or "")
        for m in marks:
            if m in seen:
                found.append(f"{e['request']['method']} {e['request']['url']} -> {res['status']}: {m}")
    print(f"== {len(entries)} responses to the scoped key read; {len(found)} carry data of another scope")
    for line in found[:20]:
        print(f"   leak: {line}")
    sys.exit(1 if found else 0)


def with_examples(spec_in, spec_out, nodes, others, conflicts):
    """The document with examples that name seeded nodes and conflicts."""
    with open(spec_in) as f:
        doc = json.load(f)
    schemas = doc["components"]["schemas"]
    schemas["CreateEdgeRequest"]["example"] = {
        "source_id": nodes[0], "target_id": others[0], "kind": "depends_on",
        "valid_from": "2026-01-02T03:04:05.678Z",
    }
    schemas["CreateConflictRequest"]["example"] = {
        "old_node_id": nodes[1], "new_content": "The deploy region is ap-south-1",
    }
    schemas["ResolveRequest"]["example"] = {"conflict_id": conflicts[0], "resolution": "keep_both"}
    schemas["ResolveBody"]["example"] = {"resolution": "keep_both"}
    schemas["CreateNodeRequest"]["example"] = {
        "title": "Deploy region", "body": "The deploy region is us-west-2",
        "observed_at": "2026-01-02T03:04:05.678Z", "labels": ["seed"],
    }
    schemas["PatchNodeRequest"]["example"] = {"observed_at": "2026-01-02T03:04:05.678Z"}
    with open(spec_out, "w") as f:
        json.dump(doc, f)


def seed(base, out, spec_in, spec_out, seed_value):
    rng = random.Random(seed_value)
    api = Api(base)
    nodes = [node(api, rng, i) for i in range(NODES)]
    # Second endpoints: an edge or a conflict between two nodes of one list could name one
    # node twice, which the server refuses.
    others = [node(api, rng, 500 + i) for i in range(NODES)]
    deletable = [node(api, rng, NODES + i) for i in range(DELETABLE)]
    conflicts = []
    for i in range(CONFLICTS):
        old = node(api, rng, 1000 + i)
        side = (
            {"new_node_id": node(api, rng, 2000 + i)}
            if i % 2
            else {"new_content": f"{TOPICS[i % len(TOPICS)][2]} (seed {i})"}
        )
        conflicts.append(api.json("POST", "/conflicts", {"old_node_id": old, **side})["id"])
    # One detected conflict too, so detection's write path is exercised before fuzzing.
    api.json("POST", "/nodes", in_scope({"title": "Port", "body": "The port is 80"}))
    api.json("POST", "/nodes", in_scope({"title": "Port", "body": "The port is 8080"}))
    if SCOPE:
        with open(out + ".marks", "w") as f:
            f.write("\n".join(seed_other_scope(api)) + "\n")
        # Also `default`, where a write without `scope` goes (the contract's default): the
        # generated bodies rarely name a scope, and the other scope's data is what is guarded.
        key = api.json("POST", "/keys", {"name": "fuzz-agent", "role": "agent",
                                         "scopes": [SCOPE, "default"]})
        with open(out + ".key", "w") as f:
            f.write(key["key"])

    def values(ids):
        return "[" + ", ".join(f'"{v}"' for v in ids) + "]"

    def bind(dictionary):
        return f'{{ dictionary = "{dictionary}", probability = {PROBABILITY} }}'

    operations = [
        ("get_node", {"path.id": "nodes"}),
        ("patch_node", {"path.id": "nodes"}),
        ("check_node", {"path.id": "nodes"}),
        ("list_edges", {"path.id": "nodes"}),
        ("delete_node", {"path.id": "deletable"}),
        ("get_conflict", {"path.id": "conflicts"}),
        ("resolve_conflict", {"path.id": "conflicts"}),
        # Seeded conflicts are pending or resolved by earlier requests: a revert reaches the
        # use case (409 or 200) instead of answering 404 to random ids run after run.
        ("revert_conflict", {"path.id": "conflicts"}),
        ("resolve_contradiction", {"body.conflict_id": "conflicts"}),
        # Not `body.new_node_id`: a generated body that names `new_content` (and
        # `new_node_id: null`) would get an id put in and name both, which the schema excludes.
        ("create_conflict", {"body.old_node_id": "nodes"}),
        ("create_edge", {"body.source_id": "nodes", "body.target_id": "others"}),
    ]
    lines = [
        "# Written by scripts/fuzz_seed.py: ids of the seeded nodes and conflicts.",
        "[warnings]",
        # A schema mismatch fails the run. "Missing test data" (an operation that answered 404
        # run after run) is reported but does not: revert's 404s on seeded ids with seed 1 say
        # the generator found no resolved conflict to revert, not that the API is wrong.
        'fail-on = ["validation_mismatch"]',
        "",
        # The stateful phase does not apply the per-operation switch below, and its sequences
        # reach the versions of a node they deleted (through the `Location` a create returns);
        # there `use_after_free` is off. A deleted node's own reads answering 404 is asserted
        # by the API tests (tests/api/nodes.rs).
        "[phases.stateful.checks.use_after_free]",
        "enabled = false",
        "",
        "[dictionaries.nodes]",
        f"values = {values(nodes)}",
        "[dictionaries.others]",
        f"values = {values(others)}",
        "[dictionaries.deletable]",
        f"values = {values(deletable)}",
        "[dictionaries.conflicts]",
        f"values = {values(conflicts)}",
    ]
    # Operations whose 422 can depend on stored state (the document's `x-state-dependent`):
    # for schema-valid input positive_data_acceptance expects that 422 too, and the hooks'
    # check `refused_only_for_stored_state` fails any such 422 that names another field.
    with open(spec_in) as f:
        paths = json.load(f)["paths"]
    state_dependent = sorted(
        op["operationId"]
        for methods in paths.values()
        for op in methods.values()
        if "x-state-dependent" in op.get("responses", {}).get("422", {})
    )
    params_of = dict(operations)
    ops = set(params_of) | set(state_dependent) | set(KEPT_AFTER_DELETE) | set(SLOW)
    for op in sorted(ops):
        lines += ["", "[[operations]]", f'include-operation-id = "{op}"']
        if op in params_of:
            lines.append("[operations.parameters]")
            lines += [f'"{k}" = {bind(v)}' for k, v in params_of[op].items()]
        if op in SLOW:
            lines += ["[operations.checks]", f"max_response_time = {SLOW[op]}"]
        if op in KEPT_AFTER_DELETE:
            lines += ["[operations.checks.use_after_free]", "enabled = false"]
        if op in state_dependent:
            statuses = ", ".join(f'"{s}"' for s in POSITIVE_EXPECTED + ["422"])
            lines += [
                "[operations.checks.positive_data_acceptance]",
                f"expected-statuses = [{statuses}]",
            ]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with_examples(spec_in, spec_out, nodes, others, conflicts)
    seeded = 2 * NODES + DELETABLE + CONFLICTS + CONFLICTS // 2 + 2
    print(f"seeded {seeded} nodes and {CONFLICTS + 1} pending conflicts")


def summary(base):
    """Requests by route and status class, and resolutions, from the Prometheus text."""
    status, text = Api(base).call("GET", "/metrics")
    counts = {}
    for line in text.splitlines():
        if not line.startswith("concord_http_requests_total{"):
            continue
        labels, value = line.rsplit(" ", 1)
        fields = dict(
            part.split("=", 1) for part in labels[labels.index("{") + 1 : -1].split(",")
        )
        key = (fields["method"].strip('"'), fields["route"].strip('"'), fields["status"].strip('"'))
        counts[key] = counts.get(key, 0) + int(float(value))
    total = sum(counts.values())
    server_errors = sum(v for (_, _, s), v in counts.items() if s.startswith("5"))
    resolutions = sum(
        v
        for (m, r, s), v in counts.items()
        if m == "POST" and r in ("/conflicts/{id}/resolve", "/contradiction/resolve") and s == "200"
    )
    stats = json.loads(Api(base).call("GET", "/conflicts/stats")[1])
    print(
        f"== server saw {total} requests, {server_errors} server errors; "
        f"{resolutions} resolve requests answered 200; "
        f"{stats['resolved']} conflicts resolved, {stats['pending']} pending"
    )
    for (m, r, s), v in sorted(counts.items()):
        if s.startswith("5"):
            print(f"   5xx: {m} {r} {s} x{v}")


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
    elif sys.argv[1] == "--leaks":
        leaks(sys.argv[2], sys.argv[3])
    else:
        seed(*sys.argv[1:5], int(sys.argv[5]) if len(sys.argv) > 5 else 1)
