#!/usr/bin/env python3
"""Opens many MCP sessions against a fresh `concord serve` and reports its resident memory.

Starts the given binary on a scratch SQLite database with a small idle expiry, sends
`--sessions` `initialize` requests of one protocol revision (16 at a time, none closed),
counts the answers (200 with `Mcp-Session-Id`, 503 `/problems/mcp-sessions-full`), and prints
the server's RSS before, right after, and once the idle sessions have expired (the server
hands the expired sessions' memory back to the OS then); then opens the same number again, to
check that new sessions are accepted and that memory stays bounded by the cap, not by how many
sessions were ever opened. Revision 2026-07-28 opens no session (stateless). All requests come
from one address, so `--mcp-client-share` (default 25 %) bounds them first: `--client-share
100` measures the whole cap. See docs/reliability.md.

    scripts/mcp-sessions.py BIN [--sessions 20000] [--max-sessions 4096] [--idle-secs 30]
                                [--revision 2025-11-25] [--client-share PERCENT]
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def initialize(port, revision):
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": revision,
    }
    if revision >= "2026-07-28":
        headers["Mcp-Method"] = "server/discover"
        body = json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": revision,
                                 "io.modelcontextprotocol/clientCapabilities": {}}},
        })
    else:
        body = json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": revision, "capabilities": {},
                       "clientInfo": {"name": "mcp-sessions", "version": "1"}},
        })
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", body, headers)
        res = conn.getresponse()
        res.read()
        return res.status
    finally:
        conn.close()


def burst(port, revision, n, workers=16):
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for status in pool.map(lambda _: initialize(port, revision), range(n)):
            counts[status] = counts.get(status, 0) + 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--sessions", type=int, default=20000)
    ap.add_argument("--max-sessions", type=int, default=4096)
    ap.add_argument("--idle-secs", type=int, default=30)
    ap.add_argument("--revision", default="2025-11-25")
    ap.add_argument("--client-share", type=int, help="--mcp-client-share (server default if unset)")
    args = ap.parse_args()
    share = [] if args.client_share is None else ["--mcp-client-share", str(args.client_share)]

    work = tempfile.mkdtemp()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = subprocess.Popen(
        [args.bin, "serve", "--database-url", f"sqlite://{work}/mcp.db",
         "--bind", f"127.0.0.1:{port}", "--mcp-max-sessions", str(args.max_sessions),
         "--mcp-session-idle-secs", str(args.idle_secs), "--max-in-flight", "4096", *share],
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
        burst(port, args.revision, 16)  # warm up; these sessions expire with the rest
        before = rss_kib(server.pid)
        started = time.monotonic()
        counts = burst(port, args.revision, args.sessions)
        took = time.monotonic() - started
        opened = rss_kib(server.pid)
        time.sleep(args.idle_secs + 5)
        expired = rss_kib(server.pid)
        again = burst(port, args.revision, args.sessions)
        second = rss_kib(server.pid)
        accepted = counts.get(200, 0)
        print(f"revision {args.revision}: {args.sessions} requests in {took:.1f} s, "
              f"cap {args.max_sessions}: {json.dumps(counts)}")
        print(f"RSS before {before / 1024:.1f} MiB, after opening {opened / 1024:.1f} MiB "
              f"(+{(opened - before) / max(accepted, 1):.1f} KiB per 200), "
              f"after {args.idle_secs} s idle expiry {expired / 1024:.1f} MiB")
        print(f"after expiry, {args.sessions} more: {json.dumps(again)}, "
              f"RSS {second / 1024:.1f} MiB")
        ok = again.get(200, 0) > 0 and set(counts) | set(again) <= {200, 503}
        sys.exit(0 if ok else 1)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
