"""concord's MCP server, driven by the official MCP Python SDK (a client nobody here wrote).

Starts `concord serve` (with an API key) on a free loopback port against the database given by
--database-url, then connects over Streamable HTTP (protocol revisions 2026-07-28 and
2025-11-25) and over stdio (`concord mcp`), lists the tools, calls every tool with valid and
invalid arguments, reads the resource and the prompt, checks the HTTP guards (401, 403, 413)
and races MCP against REST on one conflict. Then runs every host configuration snippet in
examples/mcp as its host would: a stdio entry is launched (the binary for its command, the test's
database for its --database-url, its env applied), a URL entry is connected to the test server
(host and port swapped, its headers sent once the host's variables are expanded); each
initializes, lists the tools and calls remember then recall. Exits non-zero when a case fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import uuid

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

KEY = "mcp-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
CLIENT = Implementation(name="concord-tests", version="1.0")
TOOLS = {
    "remember", "recall", "check_contradictions", "list_conflicts", "resolve_conflict", "conflict_report",
    "memory_timeline",
}
CONFLICT_TYPES = {"direct-contradiction", "numeric-mismatch", "temporal-mismatch", "scope-mismatch"}
RESOLUTIONS = {"prefer-recent", "prefer-authoritative", "escalate-to-user"}
INVALID_PARAMS = -32602
ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "mcp"


class Server:
    """A `concord serve` process on a free loopback port."""

    def __init__(self, binary: str, database_url: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/mcp"
        self.log = tempfile.NamedTemporaryFile(prefix="concord-mcp-", suffix=".log", delete=False)
        env = dict(os.environ, CONCORD_LOG="warn")
        self.proc = subprocess.Popen(
            [binary, "serve", "--database-url", database_url, "--bind", f"127.0.0.1:{self.port}", "--api-keys", KEY],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"concord exited early:\n{self.output()}")
            try:
                if httpx2.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except httpx2.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"concord did not become healthy:\n{self.output()}")

    def output(self) -> str:
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("concord did not stop within 15 s of SIGTERM")


def http_client(server: Server, mode: str) -> Client:
    transport = streamable_http_client(server.url, http_client=create_mcp_http_client(headers=AUTH))
    return Client(transport, mode=mode, client_info=CLIENT)


def stdio_client(binary: str, database_url: str) -> Client:
    params = StdioServerParameters(
        command=binary,
        args=["mcp", "--database-url", database_url],
        # The invalid calls below are logged at warn; keep the run's output readable.
        env=dict(os.environ, CONCORD_LOG="error"),
    )
    return Client(params, mode="auto", client_info=CLIENT)


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


async def call(client: Client, tool: str, args: dict):
    """A successful call: returns (structured content, text)."""
    r = await client.call_tool(tool, args)
    text = "".join(getattr(c, "text", "") for c in r.content)
    check(not r.is_error, f"{tool}({args}) failed: {text}")
    check(isinstance(r.structured_content, dict), f"{tool} returns structured content: {r}")
    return r.structured_content, text


async def tool_error(client: Client, tool: str, args: dict) -> str:
    """A call that fails as a tool result (isError): returns its text."""
    r = await client.call_tool(tool, args)
    text = "".join(getattr(c, "text", "") for c in r.content)
    check(r.is_error is True, f"{tool}({args}) should be a tool error, got: {text}")
    check(isinstance(r.structured_content, dict) and r.structured_content.get("title"), f"problem: {r}")
    check(text.startswith(r.structured_content["title"] + ": "), f"title and detail in the text: {text}")
    return text


async def invalid_params(client: Client, tool: str, args: dict) -> MCPError:
    """A call refused as JSON-RPC invalid params."""
    try:
        r = await client.call_tool(tool, args)
    except MCPError as e:
        check(e.code == INVALID_PARAMS, f"{tool}({args}): code {e.code}, want {INVALID_PARAMS}: {e.message}")
        return e
    raise AssertionError(f"{tool}({args}) should be invalid params, got {r}")


async def tools_are_listed(client: Client) -> None:
    listed = await client.list_tools()
    by_name = {t.name: t for t in listed.tools}
    check(set(by_name) == TOOLS, f"tools: {sorted(by_name)}")
    for t in listed.tools:
        check(len(t.description or "") > 80, f"{t.name} has a description written for a model")
        check(t.input_schema.get("type") == "object", f"{t.name} input schema: {t.input_schema}")
    check("title" in by_name["remember"].input_schema["required"], "remember requires a title")
    props = by_name["resolve_conflict"].input_schema["properties"]
    check("conflict_id" in props and "resolution" in props, f"resolve_conflict schema: {props}")


async def every_tool(client: Client, tag: str) -> None:
    """Every tool with valid and invalid arguments; `tag` keeps runs apart in one database."""
    scope = f"scope-{tag}"
    # remember
    first, text = await call(
        client,
        "remember",
        {"title": f"{tag} cache TTL", "body": f"The {tag} cache TTL is 30 seconds", "scope": scope,
         "labels": ["Cache"], "source": "docs", "confidence": 0.9, "observed_at": "2026-01-01T00:00:00Z"},
    )
    check("conflicts" not in first, f"a first fact conflicts with nothing: {first}")
    check(first["node"]["labels"] == ["cache"], f"labels are normalised: {first}")
    other, _ = await call(
        client, "remember", {"title": f"{tag} deploys", "body": f"The {tag} team deploys on Fridays", "scope": scope}
    )
    second, text = await call(
        client, "remember", {"title": f"{tag} cache TTL", "body": f"The {tag} cache TTL is 60 seconds", "scope": scope}
    )
    conflicts = second.get("conflicts") or []
    check(len(conflicts) == 1, f"the contradiction is reported: {second}")
    c = conflicts[0]
    check(c["conflict_type"] in CONFLICT_TYPES and c["conflict_id"], f"typed and queued: {c}")
    check(c["old"]["body"] == f"The {tag} cache TTL is 30 seconds", f"both texts: {c}")
    check(c["new"]["body"] == f"The {tag} cache TTL is 60 seconds", f"both texts: {c}")
    check(c["recommendation"]["resolution"] in RESOLUTIONS, f"a recommendation: {c}")
    check("CONTRADICTS" in text and "30 seconds" in text and "60 seconds" in text, f"in words: {text}")
    conflict_id = c["conflict_id"]
    e = await invalid_params(client, "remember", {"body": "no title"})
    check(e.error.data["errors"][0]["pointer"] == "/title", f"names the missing field: {e.error}")
    e = await invalid_params(client, "remember", {"title": "x" * 501, "body": "too long a title"})
    check("/title" in e.message, f"names the field: {e.message}")
    await invalid_params(client, "remember", {"title": "t", "body": "b", "confidence": 2})
    await invalid_params(client, "remember", {"title": "t", "body": "b", "colour": "red"})

    # recall: agreement, then disagreement
    agree, text = await call(client, "recall", {"query": f"{tag} deploys"})
    check([s["id"] for s in agree["sources"]] == [other["node"]["id"]], f"recall finds the fact: {agree}")
    check("conflicts" not in agree, f"no conflicts key when memories agree: {agree}")
    disagree, text = await call(client, "recall", {"query": f"{tag} cache", "labels": ["cache"], "limit": 5})
    ids = {s["id"] for s in disagree["sources"]}
    check({first["node"]["id"], second["node"]["id"]} <= ids, f"both sides are sources: {disagree}")
    rc = disagree.get("conflicts") or []
    check(len(rc) == 1 and rc[0]["conflict_id"] == conflict_id, f"the pending conflict: {disagree}")
    check(rc[0]["conflict_type"] in CONFLICT_TYPES and rc[0]["recommended_resolution"] in RESOLUTIONS, f"{rc}")
    check(set(rc[0]["sources"]) == {first["node"]["id"], second["node"]["id"]}, f"{rc}")
    check("DISAGREE" in text, f"in words: {text}")
    await invalid_params(client, "recall", {"query": "x", "limit": 0})
    await invalid_params(client, "recall", {"query": "x", "limit": 51})
    await invalid_params(client, "recall", {"limit": 3})

    # check_contradictions: text, stored node, and bad arguments
    checked, text = await call(
        client,
        "check_contradictions",
        {"text": f"The {tag} cache TTL is 90 seconds", "title": f"{tag} cache TTL", "scope": scope},
    )
    check(len(checked.get("conflicts") or []) >= 1, f"text contradicts the stored facts: {checked}")
    check("conflict_id" not in checked["conflicts"][0], f"a check queues nothing: {checked}")
    queued, text = await call(client, "check_contradictions", {"node_id": second["node"]["id"]})
    qc = queued.get("conflicts") or []
    check(len(qc) == 1 and qc[0].get("conflict_id") == conflict_id, f"the queued conflict is reported: {queued}")
    check(f"pending conflict {conflict_id}" in text, f"in words: {text}")
    fine, _ = await call(client, "check_contradictions", {"node_id": other["node"]["id"]})
    check("conflicts" not in fine, f"an unrelated node contradicts nothing: {fine}")
    missing = await tool_error(client, "check_contradictions", {"node_id": str(uuid.uuid4())})
    check("Not found" in missing, missing)
    await invalid_params(client, "check_contradictions", {})
    await invalid_params(client, "check_contradictions", {"node_id": first["node"]["id"], "text": "both"})
    await invalid_params(client, "check_contradictions", {"node_id": "not-a-uuid"})
    await invalid_params(client, "check_contradictions", {"text": "x", "sensitivity": "extreme"})

    # list_conflicts
    listed, text = await call(client, "list_conflicts", {"conflict_type": c["conflict_type"], "limit": 200})
    mine = [i for i in listed["items"] if i["id"] == conflict_id]
    check(len(mine) == 1, f"the queued conflict is listed: {listed}")
    check(mine[0]["old_node"]["body"] == f"The {tag} cache TTL is 30 seconds", f"full bodies: {mine}")
    check(listed["pending_total"] >= 1 and conflict_id in text, f"{listed['pending_total']}: {text[:200]}")
    await invalid_params(client, "list_conflicts", {"conflict_type": "disagreement"})
    await invalid_params(client, "list_conflicts", {"limit": 0})
    await invalid_params(client, "list_conflicts", {"cursor": "garbage"})

    # conflict_report
    report, text = await call(client, "conflict_report", {"topic": f"{tag} cache ttl", "sensitivity": "strict"})
    check(report["sources_analyzed"] >= 2 and report["summary"], f"a report: {report}")
    check(any(x["conflict_type"] in CONFLICT_TYPES for x in report.get("conflicts", [])), f"{report}")
    await invalid_params(client, "conflict_report", {"topic": " "})
    await invalid_params(client, "conflict_report", {"topic": "x", "sensitivity": "max"})
    await invalid_params(client, "conflict_report", {"topic": "x", "limit": 1})

    # resolve_conflict: once, replayed, refused, unknown, invalid
    await invalid_params(client, "resolve_conflict", {"conflict_id": conflict_id, "resolution": "bogus"})
    await invalid_params(
        client, "resolve_conflict", {"conflict_id": conflict_id, "resolution": "keep_both", "merged_content": "x"}
    )
    done, text = await call(
        client, "resolve_conflict", {"conflict_id": conflict_id, "resolution": "new_is_current", "note": tag}
    )
    check(done["replayed"] is False and done["ok"] is True and done["actions"], f"executed: {done}")
    again, _ = await call(client, "resolve_conflict", {"conflict_id": conflict_id, "resolution": "new_is_current"})
    check(again["replayed"] is True and again["actions"] == done["actions"], f"a retry replays: {again}")
    refused = await tool_error(client, "resolve_conflict", {"conflict_id": conflict_id, "resolution": "keep_both"})
    check("already resolved" in refused.lower(), refused)
    unknown = await tool_error(client, "resolve_conflict", {"conflict_id": str(uuid.uuid4()), "resolution": "merge"})
    check("Not found" in unknown, unknown)

    # time: the old TTL held in January (until the new one was observed), and the timeline
    # chains both with the decision
    jan, text = await call(client, "recall", {"query": f"{tag} cache", "as_of": "2026-01-15T00:00:00Z"})
    check([x["id"] for x in jan["sources"]] == [first["node"]["id"]], f"as of January, the old TTL: {jan}")
    check("conflicts" not in jan, f"nothing disputed then, as known now: {jan}")
    await invalid_params(client, "recall", {"query": "x", "as_of": "yesterday"})
    await invalid_params(client, "recall", {"query": "x", "known_at": "2999-01-01T00:00:00Z"})
    then, _ = await call(client, "conflict_report", {"topic": f"{tag} cache", "as_of": "2026-01-15T00:00:00Z"})
    check([x["id"] for x in then["sources"]] == [first["node"]["id"]], f"a report as of January: {then}")
    check(then["as_of"] == "2026-01-15T00:00:00.000Z", f"the report names its instant: {then}")
    await invalid_params(client, "conflict_report", {"topic": "x", "known_at": "2999-01-01T00:00:00Z"})
    line, text = await call(client, "memory_timeline", {"node_id": second["node"]["id"]})
    ids = [e["node"]["id"] for e in line["entries"]]
    check(ids == [first["node"]["id"], second["node"]["id"]], f"oldest first: {line}")
    replaced = line["entries"][0]["replaced_by"]
    check(replaced["conflict_id"] == conflict_id and replaced["resolved_by"] == "mcp:concord-tests", f"{replaced}")
    check(line["entries"][0]["node"]["valid_until"] is not None, f"the old one ended: {line}")
    check("decided by mcp:concord-tests" in text and "30 seconds" in text, f"in words: {text}")
    missing = await tool_error(client, "memory_timeline", {"node_id": str(uuid.uuid4())})
    check("Not found" in missing, missing)

    # a pair decided keep_both is reported by a later check as that verdict, not as nothing
    k1, _ = await call(client, "remember", {"title": f"{tag} port", "body": f"The {tag} port is 8080", "scope": scope})
    k2, _ = await call(client, "remember", {"title": f"{tag} port", "body": f"The {tag} port is 9090", "scope": scope})
    kc = ((k2.get("conflicts") or [{}])[0]).get("conflict_id")
    check(kc, f"the port change is queued: {k2}")
    await call(client, "resolve_conflict", {"conflict_id": kc, "resolution": "keep_both"})
    kept, text = await call(client, "check_contradictions", {"node_id": k1["node"]["id"]})
    kk = kept.get("conflicts") or []
    check(len(kk) == 1 and kk[0].get("conflict_id") == kc, f"the verdict is reported: {kept}")
    check(kk[0].get("resolution") == "keep_both" and kk[0].get("resolved_by") == "mcp:concord-tests", f"{kk}")
    check(f"conflict {kc} decided keep_both by mcp:concord-tests: both hold" in text, f"in words: {text}")
    return conflict_id


async def resolved_by_names_the_client(server: Server, conflict_id: str) -> None:
    async with httpx2.AsyncClient(headers=AUTH) as http:
        got = (await http.get(f"{server.base}/conflicts/{conflict_id}")).json()
    check(got["resolved_by"] == "mcp:concord-tests", f"resolved_by: {got['resolved_by']}")
    check(got["status"] == "resolved", f"{got}")


async def resource_and_prompt(client: Client) -> None:
    resources = await client.list_resources()
    uris = [str(r.uri) for r in resources.resources]
    check("concord://conflicts/pending" in uris, f"resources: {uris}")
    read = await client.read_resource("concord://conflicts/pending")
    body = json.loads(read.contents[0].text)
    check("pending_total" in body and isinstance(body["items"], list), f"pending resource: {body}")
    try:
        await client.read_resource("concord://nothing")
        raise AssertionError("an unknown resource should fail")
    except MCPError:
        pass
    prompts = await client.list_prompts()
    check("review_conflicts" in [p.name for p in prompts.prompts], f"prompts: {prompts}")
    prompt = await client.get_prompt("review_conflicts", {})
    text = prompt.messages[0].content.text
    check("resolve_conflict" in text and "escalate-to-user" in text, f"prompt: {text[:300]}")


async def over_http(server: Server, mode: str, want_version: str, tag: str) -> None:
    async with http_client(server, mode) as client:
        check(client.protocol_version == want_version, f"negotiated {client.protocol_version}, want {want_version}")
        check(client.server_info is None or client.server_info.name == "concord", f"{client.server_info}")
        await tools_are_listed(client)
        conflict_id = await every_tool(client, tag)
        await resource_and_prompt(client)
    await resolved_by_names_the_client(server, conflict_id)


async def over_stdio(binary: str, database_url: str) -> None:
    async with stdio_client(binary, database_url) as client:
        check(client.protocol_version == "2026-07-28", f"stdio negotiated {client.protocol_version}")
        await tools_are_listed(client)
        await every_tool(client, "stdio")
        await resource_and_prompt(client)


async def legacy_sessions(server: Server) -> None:
    """2025-11-25 clients initialize and get an Mcp-Session-Id; 2026-07-28 requests get none."""
    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}},
    }
    headers = dict(AUTH, Accept="application/json, text/event-stream")
    async with httpx2.AsyncClient(headers=headers) as http:
        r = await http.post(server.url, json=init)
        check(r.status_code == 200, f"initialize: {r.status_code} {r.text}")
        check(bool(r.headers.get("mcp-session-id")), f"a session id: {dict(r.headers)}")
        check('"2025-11-25"' in r.text, f"negotiates 2025-11-25: {r.text}")


async def http_guards(server: Server) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    accept = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }

    async def post(content: bytes, headers: dict) -> httpx2.Response:
        # A refused request's body may go unread, and then the server closes the connection:
        # each request gets its own so the next one does not land on a closed socket.
        async with httpx2.AsyncClient() as http:
            return await http.post(server.url, content=content, headers=headers)

    r = await post(body, accept)
    check(r.status_code == 401, f"no key: {r.status_code}")
    check(r.headers["content-type"] == "application/problem+json", f"{r.headers}")
    r = await post(body, dict(accept, Authorization="Bearer wrong"))
    check(r.status_code == 401, f"wrong key: {r.status_code}")
    r = await post(body, dict(accept, Origin="http://evil.example", **AUTH))
    check(r.status_code == 403, f"foreign origin: {r.status_code} {r.text}")
    check(r.json()["type"] == "/problems/foreign-origin", r.text)
    r = await post(body, dict(accept, Origin=server.base, **AUTH))
    check(r.status_code != 403, f"same origin is accepted: {r.status_code} {r.text}")
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + b"x" * (2 * 1024 * 1024) + b'"}}'
    r = await post(big, dict(accept, **AUTH))
    check(r.status_code == 413, f"2 MiB+ body: {r.status_code}")
    check(r.json()["type"] == "/problems/payload-too-large", r.text)


async def resolve_concurrently(server: Server) -> None:
    """The same conflict resolved through MCP and REST at once executes exactly once."""
    async with httpx2.AsyncClient(headers=AUTH) as http:
        for body in ("The race queue limit is 100 items", "The race queue limit is 500 items"):
            r = await http.post(f"{server.base}/nodes", json={"title": "race queue limit", "body": body, "scope": "race"})
            check(r.status_code == 201, r.text)
        conflict_id = r.json()["conflicts"][0]["conflict_id"]

        async def via_rest():
            r = await http.post(f"{server.base}/conflicts/{conflict_id}/resolve", json={"resolution": "new_is_current"})
            if r.status_code == 200:
                return r.json()["replayed"]
            check(r.status_code == 409, f"REST: {r.status_code} {r.text}")
            return "refused"

        async def via_mcp(mode):
            async with http_client(server, mode) as client:
                r = await client.call_tool(
                    "resolve_conflict", {"conflict_id": conflict_id, "resolution": "new_is_current"}
                )
                return "refused" if r.is_error else r.structured_content["replayed"]

        outcomes = await asyncio.gather(
            *[via_rest() for _ in range(4)], *[via_mcp(m) for m in ("auto", "legacy", "auto", "legacy")]
        )
        check(outcomes.count(False) == 1, f"exactly one execution: {outcomes}")
        check(all(o in (True, False, "refused") for o in outcomes), f"{outcomes}")
        edges = (await http.get(f"{server.base}/nodes/{r.json()['conflicts'][0]['old_node_id']}/edges?kind=supersedes")).json()
        check(len(edges["items"]) == 1, f"one supersedes edge: {edges}")


# The MCP hosts whose configuration snippets live in examples/mcp, by file name: where the host
# keeps its servers, which transports its file can declare, and how it expands variables in
# command, args, env, url and headers. A snippet file that no host claims fails the run, so a new
# one cannot go untested.
SNIPPET_HOSTS = {
    # Claude Desktop launches local commands only (remote servers are added as connectors in the
    # app) and expands no variables.
    "claude_desktop_config.json": {"host": "Claude Desktop", "servers": "mcpServers", "types": {"stdio"},
                                   "needs_type": False, "vars": ()},
    # Claude Code's .mcp.json: `type` "http" for a URL; ${VAR} and ${VAR:-default} from the environment.
    "claude-code.mcp.json": {"host": "Claude Code", "servers": "mcpServers", "types": {"stdio", "http"},
                             "needs_type": False, "vars": ("shell",)},
    # Cursor's .cursor/mcp.json: `url` (Streamable HTTP) or `command`; ${env:NAME}, ${userHome}.
    "cursor.mcp.json": {"host": "Cursor", "servers": "mcpServers", "types": {"stdio", "http"},
                        "needs_type": False, "vars": ("env", "userHome", "workspaceFolder")},
    # VS Code's .vscode/mcp.json: top-level `servers`, `type` required; ${input:id} prompts for a
    # value declared in `inputs`, plus ${env:NAME}, ${userHome}, ${workspaceFolder}.
    "vscode.mcp.json": {"host": "VS Code", "servers": "servers", "types": {"stdio", "http"},
                        "needs_type": True, "vars": ("input", "env", "userHome", "workspaceFolder")},
    "vscode-stdio.mcp.json": {"host": "VS Code", "servers": "servers", "types": {"stdio", "http"},
                              "needs_type": True, "vars": ("input", "env", "userHome", "workspaceFolder")},
}
# The environment the host starts in: the key a snippet reads with ${CONCORD_API_KEY} or
# ${env:CONCORD_API_KEY}. A VS Code ${input:...} prompt is answered with the same key.
SNIPPET_ENV = {"CONCORD_API_KEY": KEY}
VARIABLE = re.compile(r"\$\{([^}]*)\}")


def expand(value: str, spec: dict, inputs: dict, where: str) -> str:
    """Expands the host's variables in one string as the host would; anything left over fails."""
    check(isinstance(value, str), f"{where}: a string, got {value!r}")

    def one(m: re.Match) -> str:
        name = m.group(1)
        if "shell" in spec["vars"]:
            var, _, default = name.partition(":-")
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
                if var in SNIPPET_ENV:
                    return SNIPPET_ENV[var]
                check(":-" in name, f"{where}: ${{{var}}} is unset and has no default")
                return default
        if "env" in spec["vars"] and name.startswith("env:") and name[4:] in SNIPPET_ENV:
            return SNIPPET_ENV[name[4:]]
        if "input" in spec["vars"] and name.startswith("input:"):
            check(name[6:] in inputs, f"{where}: ${{{name}}} names no promptString in `inputs`")
            return KEY
        if name in ("userHome", "workspaceFolder") and name in spec["vars"]:
            return str(pathlib.Path.home()) if name == "userHome" else str(ROOT)
        raise AssertionError(f"{where}: {spec['host']} would not expand ${{{name}}}")

    return VARIABLE.sub(one, value)


def load_snippets(directory: pathlib.Path) -> list:
    """(file, server name, host spec, entry, declared inputs) for every server of every snippet."""
    files = sorted(p for p in directory.iterdir() if p.suffix == ".json")
    check(files, f"no snippets in {directory}")
    unknown = [p.name for p in files if p.name not in SNIPPET_HOSTS]
    check(not unknown, f"no host known for {unknown}: add them to SNIPPET_HOSTS")
    missing = [name for name in SNIPPET_HOSTS if not (directory / name).is_file()]
    check(not missing, f"snippets gone from {directory}: {missing}")
    readme = (directory / "README.md").read_text(encoding="utf-8")
    out = []
    for path in files:
        spec = SNIPPET_HOSTS[path.name]
        check(f"`{path.name}`" in readme, f"{directory.name}/README.md explains `{path.name}`")
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise AssertionError(f"{path.name} is not JSON: {e}") from e
        check(isinstance(doc, dict), f"{path.name}: an object at the top")
        servers = doc.get(spec["servers"])
        check(isinstance(servers, dict) and servers, f"{path.name}: servers under `{spec['servers']}`")
        inputs = {}
        for i in doc.get("inputs", []) if "input" in spec["vars"] else []:
            check(i.get("type") == "promptString" and i.get("id"), f"{path.name}: input {i}")
            check(i.get("password") is True, f"{path.name}: input {i['id']} hides what is typed (password)")
            inputs[i["id"]] = i
        for name, entry in servers.items():
            check(isinstance(entry, dict), f"{path.name}: server {name} is an object")
            out.append((path.name, name, spec, entry, inputs))
    return out


def snippet_transport(file: str, name: str, spec: dict, entry: dict, inputs: dict,
                      binary: str, database_url: str, server: Server):
    """What the host would connect with: (transport name, StdioServerParameters or transport)."""
    where = f"{file}: {name}"
    kind = entry.get("type")
    check(kind is not None or not spec["needs_type"], f"{where}: {spec['host']} needs `type`")
    if kind is None:
        check(("command" in entry) != ("url" in entry), f"{where}: either `command` or `url`")
        kind = "stdio" if "command" in entry else "http"
    check(kind in spec["types"], f"{where}: {spec['host']} does not take type {kind!r} here")
    known = {"type", "command", "args", "env"} if kind == "stdio" else {"type", "url", "headers"}
    check(set(entry) <= known, f"{where}: fields {sorted(set(entry) - known)} are not for {kind}")
    if kind == "stdio":
        command = expand(entry.get("command"), spec, inputs, f"{where} command")
        check(re.fullmatch(r"concord(\.exe)?", pathlib.PurePath(command).name or ""), f"{where}: runs {command}")
        args = [expand(a, spec, inputs, f"{where} args") for a in entry.get("args", [])]
        check(args[:1] == ["mcp"], f"{where}: args start with the `mcp` subcommand: {args}")
        swapped = []
        for i, a in enumerate(args):
            if a == "--database-url":
                check(i + 1 < len(args), f"{where}: --database-url without a value")
                swapped.append(i + 1)
            elif a.startswith("--database-url="):
                args[i] = f"--database-url={database_url}"
                swapped.append(-1)
        check(len(swapped) == 1, f"{where}: names its database once with --database-url: {args}")
        for i in swapped:
            if i >= 0:
                check(re.match(r"(sqlite|postgres(ql)?)://", args[i]), f"{where}: a database URL: {args[i]}")
                args[i] = database_url
        env = entry.get("env", {})
        check(isinstance(env, dict), f"{where}: env is an object")
        env = {k: expand(v, spec, inputs, f"{where} env {k}") for k, v in env.items()}
        return "stdio", StdioServerParameters(command=binary, args=args, env=env)
    url = urllib.parse.urlsplit(expand(entry.get("url"), spec, inputs, f"{where} url"))
    check(url.scheme == "http" and url.hostname in ("127.0.0.1", "localhost"), f"{where}: a loopback URL: {url}")
    url = url._replace(netloc=f"127.0.0.1:{server.port}").geturl()
    headers = entry.get("headers", {})
    check(isinstance(headers, dict), f"{where}: headers is an object")
    headers = {k: expand(v, spec, inputs, f"{where} header {k}") for k, v in headers.items()}
    check(headers.get("Authorization") == f"Bearer {KEY}", f"{where}: sends the key as a Bearer token")
    return "Streamable HTTP", streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))


async def run_snippet(file: str, name: str, transport) -> None:
    """Initializes as the hosts do (the handshake), lists the tools, remembers and recalls once."""
    tag = re.sub(r"[^a-z0-9]", "", f"snippet{file.split('.')[0]}{name}".lower())
    async with Client(transport, mode="legacy", client_info=Implementation(name=tag, version="1.0")) as client:
        check(client.protocol_version == "2025-11-25", f"{file}: negotiated {client.protocol_version}")
        check(client.server_info is None or client.server_info.name == "concord", f"{client.server_info}")
        await tools_are_listed(client)
        stored, _ = await call(client, "remember", {"title": f"{tag} editor theme",
                                                    "body": f"The {tag} editor theme is solarized",
                                                    "scope": f"scope-{tag}"})
        found, text = await call(client, "recall", {"query": f"{tag} editor theme"})
        ids = [s["id"] for s in found["sources"]]
        check(stored["node"]["id"] in ids, f"{file}: recall finds what remember stored: {found}")
        check("solarized" in text, f"{file}: in words: {text}")


def leaf_errors(e: BaseException) -> str:
    """The errors inside (nested) exception groups, in words."""
    inner = getattr(e, "exceptions", None)  # an ExceptionGroup, from anyio's task groups
    if isinstance(inner, (list, tuple)) and inner:
        return "; ".join(leaf_errors(x) for x in inner)
    return f"{type(e).__name__}: {e}"


def snippet_cases(directory: pathlib.Path, binary: str, database_url: str, server: Server) -> list:
    """One case per server of every snippet file; a folder that does not load is one failing case."""
    directory = directory.resolve()
    try:
        snippets = load_snippets(directory)
    except Exception as e:
        failure = e

        async def broken():
            raise failure

        return [(f"snippets in {directory}", broken)]
    cases = []
    for file, name, spec, entry, inputs in snippets:
        async def case(file=file, name=name, spec=spec, entry=entry, inputs=inputs):
            kind, transport = snippet_transport(file, name, spec, entry, inputs, binary, database_url, server)
            try:
                # A transport that never answers fails the case instead of hanging the run.
                await asyncio.wait_for(run_snippet(file, name, transport), timeout=60)
            except Exception as e:
                raise AssertionError(f"{file}: {name} over {kind}: {leaf_errors(e)}") from e

        kind = entry.get("type") or ("stdio" if "command" in entry else "http")
        shown = directory.relative_to(ROOT) if directory.is_relative_to(ROOT) else directory
        cases.append((f"snippet {shown}/{file} ({spec['host']}, {name}, {kind})", case))
    return cases


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--examples", type=pathlib.Path, default=EXAMPLES, help="the snippets' folder")
    args = ap.parse_args()
    server = Server(args.bin, args.database_url)
    cases = [
        ("Streamable HTTP, 2026-07-28 (server/discover, stateless)",
         lambda: over_http(server, "auto", "2026-07-28", "modern")),
        ("Streamable HTTP, 2025-11-25 (initialize handshake)",
         lambda: over_http(server, "legacy", "2025-11-25", "legacy")),
        ("2025-11-25 sessions", lambda: legacy_sessions(server)),
        ("stdio (concord mcp)", lambda: over_stdio(args.bin, args.database_url)),
        ("401 / 403 / 413 on /mcp", lambda: http_guards(server)),
        ("MCP and REST resolve one conflict concurrently", lambda: resolve_concurrently(server)),
        *snippet_cases(args.examples, args.bin, args.database_url, server),
    ]
    failed = 0
    try:
        for name, case in cases:
            try:
                await case()
                print(f"ok    {name}")
            except Exception:
                failed += 1
                print(f"FAIL  {name}")
                traceback.print_exc()
    finally:
        server.stop()
    if failed:
        print(f"--- concord log ---\n{server.output()}", file=sys.stderr)
        print(f"{failed} of {len(cases)} MCP cases failed")
        return 1
    print(f"all {len(cases)} MCP cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
