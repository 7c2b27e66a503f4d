#!/usr/bin/env python3
"""Crash-safety client for scripts/crash-test.sh (standard library only).

Starts concord on DATABASE_URL, runs writers and resolvers against it, kills the server with
SIGKILL at a random moment, restarts it, and repeats. Every acknowledged write (201) and
resolution (200) is remembered; at the end each must be present, retries of unacknowledged
resolutions must be safe, and `concord check` must find no violation.

Usage: crash_client.py BINARY DATABASE_URL CYCLES [SEED]
Prints a summary line `RESULT {json}` and exits non-zero on any lost write or violation.
"""

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

STRATEGIES = ["new_is_current", "old_is_current", "keep_both", "merge"]
WORKERS = 6


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, binary, url, log):
        self.binary, self.url, self.log = binary, url, log
        self.proc = None
        self.port = None

    def start(self):
        self.port = free_port()
        env = dict(os.environ, CONCORD_LOG="warn")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--database-url", self.url, "--bind", f"127.0.0.1:{self.port}"],
            stdout=self.log, stderr=self.log, env=env)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if call(self.port, "GET", "/readyz", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not become ready")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def call(port, method, path, body=None, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        res = conn.getresponse()
        raw = res.read()
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = raw.decode(errors="replace")
        return res.status, payload
    finally:
        conn.close()


class Ledger:
    """What the server acknowledged, shared by the worker threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.nodes = {}          # node id -> title
        self.conflicts = {}      # conflict id -> {"old", "new", "strategy"}
        self.resolved = {}       # conflict id -> acknowledged reply
        self.unresolved = []     # acknowledged conflicts whose resolution was not acknowledged
        self.attempts = 0
        self.errors = 0          # connection failures (expected around a kill)
        self.unexpected = []     # statuses that should never happen

    def note_unexpected(self, what):
        with self.lock:
            if len(self.unexpected) < 50:
                self.unexpected.append(what)


def worker(port, ledger, rng, stop):
    while not stop.is_set():
        try:
            # Retry a conflict whose resolution was never acknowledged (maybe done, maybe not).
            retry = None
            with ledger.lock:
                if ledger.unresolved and rng.random() < 0.3:
                    retry = ledger.unresolved.pop(rng.randrange(len(ledger.unresolved)))
            if retry is not None:
                resolve(port, ledger, retry)
                continue
            topic = f"Setting {rng.randrange(10**9)}"
            ids = []
            for value in (rng.randrange(100), 100 + rng.randrange(100)):
                with ledger.lock:
                    ledger.attempts += 1
                detect = "true" if rng.random() < 0.3 else "false"
                s, b = call(port, "POST", f"/nodes?detect={detect}",
                            {"title": topic, "body": f"The {topic.lower()} is {value}",
                             "labels": ["crash", f"l{rng.randrange(5)}"],
                             "source": f"test:{rng.randrange(3)}"})
                if s != 201:
                    ledger.note_unexpected(f"POST /nodes {s} {b}")
                    break
                with ledger.lock:
                    ledger.nodes[b["node"]["id"]] = topic
                ids.append(b["node"]["id"])
            if len(ids) < 2:
                continue
            s, b = call(port, "POST", "/conflicts", {"old_node_id": ids[0], "new_node_id": ids[1]})
            if s not in (200, 201):
                ledger.note_unexpected(f"POST /conflicts {s} {b}")
                continue
            cid = b["id"]
            with ledger.lock:
                ledger.conflicts[cid] = {"old": ids[0], "new": ids[1],
                                         "strategy": rng.choice(STRATEGIES)}
            resolve(port, ledger, cid)
        except (OSError, http.client.HTTPException):
            with ledger.lock:
                ledger.errors += 1
            time.sleep(0.02)


def resolve(port, ledger, cid):
    strategy = ledger.conflicts[cid]["strategy"]
    try:
        s, b = call(port, "POST", f"/conflicts/{cid}/resolve", {"resolution": strategy})
    except (OSError, http.client.HTTPException):
        with ledger.lock:
            ledger.unresolved.append(cid)
        raise
    with ledger.lock:
        if s == 200:
            if cid in ledger.resolved and not b.get("replayed"):
                ledger.unexpected.append(f"{cid} executed twice")
            ledger.resolved.setdefault(cid, b)
        elif s == 503:
            ledger.unresolved.append(cid)
        else:
            ledger.unexpected.append(f"resolve {cid} {s} {b}")


def verify(port, ledger, binary, url):
    lost = []
    merged_away = set()
    for cid, c in ledger.conflicts.items():
        s, b = call(port, "GET", f"/conflicts/{cid}")
        if s != 200:
            lost.append(f"conflict {cid}: GET {s}")
            continue
        if b["status"] == "resolved" and b["resolution"] == "merge":
            merged_away.add(c["new"])
        ack = ledger.resolved.get(cid)
        if ack is not None:
            if b["status"] != "resolved" or b["resolution"] != ack["resolution"]:
                lost.append(f"conflict {cid}: acknowledged {ack['resolution']}, stored {b['status']}")
            elif [a["action"] for a in b["actions"]] != [a["action"] for a in ack["actions"]]:
                lost.append(f"conflict {cid}: actions differ from the acknowledged ones")
            # A retry of an acknowledged resolution replays it and writes nothing.
            s, r = call(port, "POST", f"/conflicts/{cid}/resolve", {"resolution": ack["resolution"]})
            if s != 200 or not r.get("replayed"):
                lost.append(f"conflict {cid}: retry answered {s} {r}")
    for nid in ledger.nodes:
        s, _ = call(port, "GET", f"/nodes/{nid}")
        if s != 200 and not (s == 404 and nid in merged_away):
            lost.append(f"node {nid}: GET {s}")
    check = subprocess.run([binary, "check", "--database-url", url],
                           capture_output=True, text=True, env=dict(os.environ, CONCORD_LOG="warn"))
    violations = [l for l in check.stdout.splitlines() if not l.startswith("ok:")]
    return lost, violations, check.returncode


def main():
    binary, url, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(10**6)
    rng = random.Random(seed)
    log = open(os.environ.get("CRASH_LOG", os.devnull), "ab")
    server = Server(binary, url, log)
    ledger = Ledger()
    kills = 0
    for cycle in range(cycles):
        server.start()
        stop = threading.Event()
        threads = [threading.Thread(target=worker,
                                    args=(server.port, ledger, random.Random(rng.random()), stop))
                   for _ in range(WORKERS)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.3, 2.0))
        server.kill()
        kills += 1
        stop.set()
        for t in threads:
            t.join()
        print(f"  cycle {cycle + 1}/{cycles}: killed; {len(ledger.nodes)} nodes, "
              f"{len(ledger.conflicts)} conflicts, {len(ledger.resolved)} resolutions acknowledged",
              flush=True)
    server.start()
    # Resolutions whose outcome was never acknowledged are retried now: each must succeed once.
    for cid in list(dict.fromkeys(ledger.unresolved)):
        resolve(server.port, ledger, cid)
    lost, violations, rc = verify(server.port, ledger, binary, url)
    server.kill()
    result = {
        "seed": seed, "kill_cycles": kills,
        "nodes_acknowledged": len(ledger.nodes), "conflicts_acknowledged": len(ledger.conflicts),
        "resolutions_acknowledged": len(ledger.resolved), "write_attempts": ledger.attempts,
        "connection_errors": ledger.errors, "lost": len(lost), "unexpected": len(ledger.unexpected),
        "check_violations": len(violations), "check_exit": rc,
    }
    for line in lost[:20] + ledger.unexpected[:20] + violations[:20]:
        print("  !", line)
    print("RESULT " + json.dumps(result), flush=True)
    sys.exit(0 if not lost and not violations and not ledger.unexpected and rc == 0 else 1)


if __name__ == "__main__":
    main()
