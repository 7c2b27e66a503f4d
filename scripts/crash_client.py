#!/usr/bin/env python3
"""Crash-safety client for scripts/crash-test.sh (standard library only).

Starts concord on DATABASE_URL, runs writers and resolvers against it, kills the server with
SIGKILL at a random moment, restarts it, and repeats. Every acknowledged write (201) and
resolution (200) is remembered; at the end each must be present, retries of unacknowledged
resolutions must be safe, and `concord check` must find no violation.

Every POST carries an Idempotency-Key. A request whose reply was lost in a kill is sent
again with the same key (during the run and after the last restart; a key still in flight
because its first process died before committing answers 409 until the stale window passes,
and is sent again then). Each node request has a label of its own, so a resent one that
executed twice shows up as two nodes: the duplicate count, which must be 0.

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
import uuid

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


def call(port, method, path, body=None, timeout=10, key=None, with_headers=False):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Idempotency-Key": key} if key else {}
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
        if with_headers:
            return res.status, payload, res.getheader("Idempotency-Replayed") == "true"
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
        self.pending = []        # keyed node requests whose reply was lost, to send again
        self.lost_replies = 0    # keyed requests (nodes and resolutions) whose reply was lost
        self.resent = []         # labels of node requests sent again after a lost reply
        self.replayed = 0        # resends answered from the stored response
        self.server_errors = 0   # 5xx answers

    def note_status(self, status):
        if status >= 500:
            with self.lock:
                self.server_errors += 1

    def note_unexpected(self, what):
        with self.lock:
            if len(self.unexpected) < 50:
                self.unexpected.append(what)


def create_node(port, ledger, request):
    """Sends a keyed node request; a lost reply leaves it pending, to be sent again."""
    try:
        s, b, replayed = call(port, "POST", request["path"], request["body"],
                              key=request["key"], with_headers=True)
    except (OSError, http.client.HTTPException):
        with ledger.lock:
            if not request.get("lost"):
                request["lost"] = True
                ledger.lost_replies += 1
            ledger.pending.append(request)
        raise
    ledger.note_status(s)
    if s == 409 and request.get("lost"):
        # Claimed by a process that died before committing: in flight until it goes stale.
        with ledger.lock:
            ledger.pending.append(request)
        return None
    if s != 201:
        ledger.note_unexpected(f"POST /nodes {s} {b}")
        return None
    with ledger.lock:
        ledger.nodes[b["node"]["id"]] = request["topic"]
        if request.get("lost"):
            ledger.resent.append(request["label"])
            ledger.replayed += replayed
    return b["node"]["id"]


def worker(port, ledger, rng, stop):
    while not stop.is_set():
        try:
            # Send again a keyed node request whose reply was lost.
            again = None
            with ledger.lock:
                if ledger.pending and rng.random() < 0.3:
                    again = ledger.pending.pop(rng.randrange(len(ledger.pending)))
            if again is not None:
                create_node(port, ledger, again)
                continue
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
                label = f"k{uuid.UUID(int=rng.getrandbits(128)).hex}"
                nid = create_node(port, ledger, {
                    "path": f"/nodes?detect={detect}", "topic": topic, "label": label,
                    "key": f"node-{label}",
                    "body": {"title": topic, "body": f"The {topic.lower()} is {value}",
                             "labels": ["crash", f"l{rng.randrange(5)}", label],
                             "source": f"test:{rng.randrange(3)}"}})
                if nid is None:
                    break
                ids.append(nid)
            if len(ids) < 2:
                continue
            s, b = call(port, "POST", "/conflicts", {"old_node_id": ids[0], "new_node_id": ids[1]},
                        key=f"queue-{ids[0]}-{ids[1]}")
            ledger.note_status(s)
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
    c = ledger.conflicts[cid]
    strategy = c["strategy"]
    try:
        s, b = call(port, "POST", f"/conflicts/{cid}/resolve", {"resolution": strategy},
                    key=f"resolve-{cid}")
    except (OSError, http.client.HTTPException):
        with ledger.lock:
            if not c.get("lost"):
                c["lost"] = True
                ledger.lost_replies += 1
            ledger.unresolved.append(cid)
        raise
    ledger.note_status(s)
    with ledger.lock:
        if s == 200:
            if cid in ledger.resolved and not b.get("replayed"):
                ledger.unexpected.append(f"{cid} executed twice")
            ledger.resolved.setdefault(cid, b)
        elif s in (409, 503):
            # 409: the key is still in flight after a kill; 503: busy. Both are retried.
            ledger.unresolved.append(cid)
        else:
            ledger.unexpected.append(f"resolve {cid} {s} {b}")


def duplicates(port, ledger):
    """Nodes written more than once for one keyed request whose reply was lost."""
    found = 0
    for label in ledger.resent:
        s, b = call(port, "GET", f"/nodes?label={label}&limit=10")
        if s == 200 and len(b["items"]) > 1:
            found += len(b["items"]) - 1
    return found


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
    # Requests whose reply was never received are sent again now, with their keys: each must
    # take effect once. A key claimed by a process that died before committing stays in
    # flight (409) until the stale window (120 s) passes.
    deadline = time.time() + 180
    while (ledger.pending or ledger.unresolved) and time.time() < deadline:
        pending, ledger.pending = ledger.pending, []
        for request in pending:
            create_node(server.port, ledger, request)
        unresolved, ledger.unresolved = list(dict.fromkeys(ledger.unresolved)), []
        for cid in unresolved:
            resolve(server.port, ledger, cid)
        if ledger.pending or ledger.unresolved:
            time.sleep(2)
    for request in ledger.pending:
        ledger.note_unexpected(f"node request {request['key']} still in flight")
    for cid in ledger.unresolved:
        ledger.note_unexpected(f"resolution {cid} still in flight")
    lost, violations, rc = verify(server.port, ledger, binary, url)
    dups = duplicates(server.port, ledger)
    server.kill()
    result = {
        "seed": seed, "kill_cycles": kills,
        "nodes_acknowledged": len(ledger.nodes), "conflicts_acknowledged": len(ledger.conflicts),
        "resolutions_acknowledged": len(ledger.resolved), "write_attempts": ledger.attempts,
        "connection_errors": ledger.errors, "lost_writes": len(lost),
        "lost_replies": ledger.lost_replies, "resent_nodes": len(ledger.resent),
        "resends_replayed": ledger.replayed, "duplicates": dups,
        "server_errors": ledger.server_errors, "unexpected": len(ledger.unexpected),
        "check_violations": len(violations), "check_exit": rc,
    }
    for line in lost[:20] + ledger.unexpected[:20] + violations[:20]:
        print("  !", line)
    print(f"  lost replies {ledger.lost_replies}, resent nodes {len(ledger.resent)} "
          f"({ledger.replayed} replayed), duplicates {dups}, lost writes {len(lost)}, "
          f"server errors {ledger.server_errors}", flush=True)
    print("RESULT " + json.dumps(result), flush=True)
    ok = not lost and not violations and not ledger.unexpected and rc == 0 and dups == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
