/** Keys, the caller, the audit record, sweeps and the operational endpoints. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Concord, KeyExists, SweepRunning, Unauthorized, ok } from "../src/index.js";
import { FAST_RETRY, client, newScope, server, sleep, words } from "./support.js";

describe("admin", () => {
  test("operational endpoints", async () => {
    const c = client();
    assert.equal(ok(await c.raw.GET("/healthz")).status, "ok");
    assert.equal(ok(await c.raw.GET("/readyz")).status, "ok");
    const metrics = ok(await c.raw.GET("/metrics", { parseAs: "text" }));
    assert.match(metrics, /concord_/);
  });

  test("keys, me and audit", async () => {
    const c = client();
    const scope = newScope();
    const me = await c.me();
    assert.equal(me.role, "admin");
    const name = "reviewer-" + crypto.randomUUID().slice(0, 8);
    const body = { name, role: "reviewer", scopes: [scope] };
    const made = ok(await c.raw.POST("/keys", { body }));
    assert.equal(made.api_key.name, name);
    await assert.rejects(c.raw.POST("/keys", { body }), KeyExists);
    assert.ok(ok(await c.raw.GET("/keys")).items.some((k) => k.name === name));

    const reviewer = new Concord(server.url, { apiKey: made.key, retry: FAST_RETRY });
    assert.deepEqual((await reviewer.me()).scopes, [scope]);
    const revoked = ok(await c.raw.DELETE("/keys/{name}", { params: { path: { name } } }));
    assert.ok(revoked.revoked_at);
    await assert.rejects(reviewer.me(), Unauthorized);

    const audit = ok(await c.raw.GET("/audit", { params: { query: { key: me.name, limit: 20 } } }));
    const actions = new Set(audit.items.map((e) => e.action));
    assert.ok(actions.has("key.created") && actions.has("key.revoked"), [...actions].join());
  });

  test("sweeps", async () => {
    const c = client();
    const scope = newScope();
    // Written without detection, so the sweep has pairs to compare and takes a while.
    const nodes = Array.from({ length: 1000 }, (_, i) => ({
      title: `${words(3)} limit`,
      body: `The ${words(4)} limit is ${i}`,
      scope,
    }));
    ok(await c.raw.POST("/nodes/batch", { body: { nodes }, params: { query: { detect: false } } }));
    const sweep = ok(await c.raw.POST("/sweeps", { body: { scope } }));
    assert.equal(sweep.scope, scope);
    const refused = await c.raw.POST("/sweeps", { body: { scope } }).then(
      () => assert.fail("a second sweep started"),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof SweepRunning);
    assert.equal(refused.body["sweep_id"], sweep.id);

    const path = { id: sweep.id };
    assert.equal(ok(await c.raw.DELETE("/sweeps/{id}", { params: { path } })).id, sweep.id);
    const deadline = Date.now() + 30_000;
    while (ok(await c.raw.GET("/sweeps/{id}", { params: { path } })).status === "running") {
      assert.ok(Date.now() < deadline, "the sweep did not stop");
      await sleep(100);
    }
    const listed = ok(await c.raw.GET("/sweeps", { params: { query: { limit: 5 } } }));
    assert.ok(listed.items.some((s) => s.id === sweep.id));
  });
});
