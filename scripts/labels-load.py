#!/usr/bin/env python3
"""Sends oversized label lists while polling /healthz, against a fresh `concord serve`.

Starts the given binary on a scratch SQLite database, then sends `--writes` concurrent
`POST /nodes` with `--labels` distinct labels each (100,000 labels is about 1 MB, under the
body limit) while a poller asks `/healthz` every 20 ms. Prints each write's status and time
and the health probes' median and worst latency during the run. See docs/reliability.md.

    scripts/labels-load.py BIN [--labels 100000] [--writes 2] [--rounds 5]
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time


def call(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        started = time.monotonic()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body, headers)
        res = conn.getresponse()
        res.read()
        return res.status, time.monotonic() - started
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--labels", type=int, default=100_000)
    ap.add_argument("--writes", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    work = tempfile.mkdtemp()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = subprocess.Popen(
        [args.bin, "serve", "--database-url", f"sqlite://{work}/labels.db",
         "--bind", f"127.0.0.1:{port}"],
        env={**os.environ, "CONCORD_LOG": "warn"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        body = json.dumps({"title": "labels", "body": "x",
                           "labels": [f"label-{i}" for i in range(args.labels)]})
        health = []
        stop = threading.Event()

        def poll():
            while not stop.is_set():
                health.append(call(port, "GET", "/healthz")[1])
                time.sleep(0.02)

        poller = threading.Thread(target=poll)
        poller.start()
        writes = []
        with concurrent.futures.ThreadPoolExecutor(args.writes) as pool:
            for _ in range(args.rounds):
                writes += pool.map(lambda _: call(port, "POST", "/nodes", body),
                                   range(args.writes))
        stop.set()
        poller.join()
        times = sorted(t for _, t in writes)
        statuses = sorted({s for s, _ in writes})
        print(f"{len(writes)} POST /nodes with {args.labels} labels ({len(body) / 1e6:.2f} MB), "
              f"{args.writes} at a time: statuses {statuses}, median "
              f"{statistics.median(times) * 1000:.1f} ms, worst {times[-1] * 1000:.1f} ms")
        print(f"{len(health)} GET /healthz meanwhile: median "
              f"{statistics.median(health) * 1000:.1f} ms, worst {max(health) * 1000:.1f} ms")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
