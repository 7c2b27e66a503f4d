#!/usr/bin/env python3
"""A tenant's memory list with a key of one scope against a key of the same scope and one more.

Imports MEMORIES generated memories spread over SCOPES scopes (without detection) into a fresh
SQLite database, starts `concord serve` with one admin key, makes two reader keys (`one`:
tenant-007; `two`: tenant-007 and an empty scope, so its list is the same rows through the
pattern filter every multi-scope key uses) and times `GET /nodes?limit=50` with each,
alternating which goes first, 5 x 100 requests each. Prints p50/p90 and the ratio.

    python3 scripts/bench-tenant-list.py target/release/concord [MEMORIES] [SCOPES]
"""
import http.client
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

binary = Path(sys.argv[1]).resolve()
memories = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
scopes = int(sys.argv[3]) if len(sys.argv) > 3 else 100
port = 18091
work = Path(tempfile.mkdtemp(prefix="concord-tenant-list-"))

random.seed(7)
words = "harbour glacier orchard lantern meadow copper falcon willow quartz ember canyon violet".split()
with open(work / "m.jsonl", "w") as f:
    for i in range(memories):
        a, b = random.choice(words), random.choice(words)
        f.write(json.dumps({
            "title": f"{a.title()} {i}",
            "body": f"The {a} {i} keeps {b} number {random.randint(1, 999)}",
            "scope": f"tenant-{i % scopes:03d}",
        }) + "\n")
db = f"sqlite://{work}/db.sqlite"
subprocess.run([binary, "import", work / "m.jsonl", "--database-url", db, "--no-detect"],
               check=True, stdout=subprocess.DEVNULL)
server = subprocess.Popen([binary, "serve", "--database-url", db, "--bind", f"127.0.0.1:{port}",
                           "--api-keys", "admin-key"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.1)

    def call(method, path, key, body=None):
        c = http.client.HTTPConnection("127.0.0.1", port)
        c.request(method, path, body=json.dumps(body) if body else None,
                  headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, r.read()

    keys = {}
    for name, held in [("one", ["tenant-007"]), ("two", ["tenant-007", "tenant-zzz"])]:
        status, body = call("POST", "/keys", "admin-key",
                            {"name": name, "role": "reader", "scopes": held})
        assert status == 201, (status, body)
        keys[name] = json.loads(body)["key"]
    conns = {k: http.client.HTTPConnection("127.0.0.1", port) for k in keys}

    def get(k):
        t = time.perf_counter()
        conns[k].request("GET", "/nodes?limit=50", headers={"Authorization": f"Bearer {keys[k]}"})
        r = conns[k].getresponse()
        body = r.read()
        assert r.status == 200, (r.status, body[:200])
        return (time.perf_counter() - t) * 1000, [n["id"] for n in json.loads(body)["items"]]

    assert get("one")[1] == get("two")[1], "both keys list the same memories"
    times = {"one": [], "two": []}
    for run in range(5):
        for k in (["one", "two"] if run % 2 == 0 else ["two", "one"]):
            times[k] += [get(k)[0] for _ in range(100)]
    for k, v in times.items():
        print(f"{k}: p50 {statistics.median(v):.2f} ms, p90 {sorted(v)[len(v) * 9 // 10]:.2f} ms")
    print(f"one / two: {statistics.median(times['one']) / statistics.median(times['two']):.3f}")
finally:
    server.terminate()
    server.wait()
