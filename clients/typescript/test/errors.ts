/** Every problem type a client can provoke comes back as its own error class, with the
 * problem's members. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AlreadyResolved,
  Concord,
  ConcordError,
  ConflictStale,
  ForeignOrigin,
  HeadersTooLarge,
  IdempotencyKeyReuse,
  MalformedJson,
  MethodNotAllowed,
  NO_RETRY,
  NotFound,
  NotResolved,
  PayloadTooLarge,
  RevertConflict,
  RoleForbidden,
  ScopeForbidden,
  TooManyFailedKeys,
  Unauthorized,
  UnsupportedMediaType,
  UriTooLong,
  ValidationError,
  ok,
} from "../src/index.js";
import { FAST_RETRY, client, contradiction, newScope, server } from "./support.js";

/** The error a promise rejects with, checked to be of `cls`. */
async function thrown<T extends ConcordError>(
  promise: Promise<unknown>,
  cls: abstract new (...args: never[]) => T,
): Promise<T> {
  const e = await promise.then(
    () => assert.fail(`expected ${cls.name}`),
    (x: unknown) => x,
  );
  assert.ok(e instanceof cls, `expected ${cls.name}, got ${String(e)}`);
  return e;
}

async function keyFor(c: Concord, role: string, scope: string): Promise<string> {
  const body = { name: `${role}-${crypto.randomUUID().slice(0, 8)}`, role, scopes: [scope] };
  return ok(await c.raw.POST("/keys", { body })).key;
}

const JSON_TYPE = { "content-type": "application/json" };

describe("errors", () => {
  test("validation", async () => {
    const e = await thrown(client().remember({ title: "   ", confidence: 2.0 }), ValidationError);
    assert.equal(e.status, 422);
    assert.equal(e.type, "/problems/validation");
    const pointers = new Set(e.errors.map((x) => x.pointer));
    assert.ok(pointers.has("/title") && pointers.has("/confidence"));
    assert.ok(e.title && e.detail && e.requestId);
  });

  test("HTTP-level problems", async () => {
    const c = client();
    assert.equal((await thrown(c.request("/nodes", { method: "POST", body: "{", headers: JSON_TYPE }), MalformedJson)).status, 400);
    await thrown(c.request("/nodes", { method: "POST", body: "title", headers: { "content-type": "text/plain" } }), UnsupportedMediaType);
    await thrown(c.request("/nodes", { method: "PUT", body: "{}", headers: JSON_TYPE }), MethodNotAllowed);
    assert.ok((await thrown(c.node(crypto.randomUUID()), NotFound)).requestId);
    await thrown(c.request("/conflicts/not-a-uuid"), NotFound);
    await thrown(c.remember({ title: "big", body: "x".repeat(3 * 1024 * 1024) }), PayloadTooLarge);
    await thrown(c.request("/nodes/" + "n".repeat(40_000) + "?q=" + "q".repeat(40_000)), UriTooLong);
    const filler = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`x-filler-${i}`, "1"]));
    await thrown(c.request("/me", { headers: filler }), HeadersTooLarge);
    await thrown(
      c.request("/mcp", {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        headers: { ...JSON_TYPE, origin: "https://elsewhere.example", accept: "application/json, text/event-stream" },
      }),
      ForeignOrigin,
    );
  });

  test("roles and scopes", async () => {
    const c = client();
    const scope = newScope();
    const reader = new Concord(server.url, { apiKey: await keyFor(c, "reader", scope), retry: FAST_RETRY });
    assert.equal((await thrown(reader.remember({ title: "x", body: "y", scope }), RoleForbidden)).status, 403);
    const agent = new Concord(server.url, { apiKey: await keyFor(c, "agent", scope), retry: FAST_RETRY });
    await agent.remember({ title: "mine", body: "in my scope", scope });
    const e = await thrown(agent.remember({ title: "theirs", body: "in another scope", scope: scope + "-other" }), ScopeForbidden);
    assert.ok(e.detail.includes(scope));
    // An id of a scope the key lacks is a plain 404.
    const elsewhere = await c.remember({ title: "hidden", body: "not for the agent", scope: scope + "-other" });
    await thrown(agent.node(elsewhere.node.id), NotFound);
  });

  test("resolution problems", async () => {
    const c = client();
    const scope = newScope();
    const pair = await contradiction(c, scope);
    await thrown(c.revert(pair.conflictId), NotResolved);
    await c.resolve(pair.conflictId, "new_is_current");
    const already = await thrown(c.resolve(pair.conflictId, "old_is_current"), AlreadyResolved);
    assert.equal((already.body["current"] as { resolution: string }).resolution, "new_is_current");

    // Editing a node the resolution changed puts that change in the revert's way.
    await c.updateNode(pair.oldId, { body: "edited after the decision" });
    const blocked = await thrown(c.revert(pair.conflictId), RevertConflict);
    assert.ok(Array.isArray(blocked.body["changes"]) && blocked.body["changes"].length > 0);

    const stale = await contradiction(c, scope);
    await c.updateNode(stale.oldId, { state: "dormant" });
    const e = await thrown(c.resolve(stale.conflictId, "old_is_current"), ConflictStale);
    assert.equal(e.body["node_id"], stale.oldId);
    assert.equal((await c.conflict(stale.conflictId)).status, "pending");
  });

  test("an Idempotency-Key reused with another request", async () => {
    const c = client();
    const scope = newScope();
    const headers = { ...JSON_TYPE, "idempotency-key": crypto.randomUUID() };
    const send = (body: string) =>
      c.request("/nodes", { method: "POST", headers, body: JSON.stringify({ title: "a", body, scope }) });
    const first = await (await send("one")).json();
    const replay = await send("one");
    assert.equal(replay.headers.get("idempotency-replayed"), "true");
    assert.deepEqual(await replay.json(), first);
    await thrown(send("two"), IdempotencyKeyReuse);
  });

  test("unauthorized, then too many failed keys", async () => {
    // Runs last among the live tests: after it, this address gets 429 for bad keys a while.
    const stranger = new Concord(server.url, { apiKey: "not-a-key", retry: NO_RETRY });
    assert.equal((await thrown(stranger.me(), Unauthorized)).status, 401);
    let locked: TooManyFailedKeys | undefined;
    for (let i = 0; i < 20 && !locked; i++) {
      const e = await stranger.me().catch((x: unknown) => x);
      if (e instanceof TooManyFailedKeys) locked = e;
      else assert.ok(e instanceof Unauthorized, String(e));
    }
    assert.ok(locked && locked.retryAfter !== null && locked.retryAfter > 0);
    // A client that honours Retry-After up to only 1 s gives up at once instead of waiting.
    const impatient = new Concord(server.url, { apiKey: "not-a-key", retry: { maxRetryAfter: 1 } });
    await thrown(impatient.me(), TooManyFailedKeys);
  });
});
