/** The conflict queue: queueing, listing and paging, each strategy, replays, revert, history,
 * and the reports around it. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ok } from "../src/index.js";
import { client, contradiction, newScope } from "./support.js";

describe("conflicts", () => {
  test("the queue lists, pages and counts", async () => {
    const c = client();
    const scope = newScope();
    const pairs = [];
    for (let i = 0; i < 5; i++) pairs.push(await contradiction(c, scope));
    const listed = [];
    for await (const x of c.conflicts({ scope, limit: 2 })) listed.push(x);
    assert.deepEqual(listed.map((x) => x.id), pairs.map((p) => p.conflictId), "oldest first");
    assert.equal(listed[0]?.status, "pending");
    assert.equal(listed[0]?.conflict_type, "numeric-mismatch");
    const newest = [];
    for await (const x of c.conflicts({ scope, order: "newest", limit: 3 })) newest.push(x.id);
    assert.deepEqual(newest, pairs.map((p) => p.conflictId).reverse());
    const stats = ok(await c.raw.GET("/conflicts/stats"));
    assert.ok(stats.pending >= 5 && (stats.by_type["numeric-mismatch"] ?? 0) >= 5);
  });

  test("a reported conflict is queued once; keep_both creates the new side", async () => {
    const c = client();
    const scope = newScope();
    const old = (await c.remember({ title: "Region", body: "We deploy to eu-west-1", scope })).node;
    const queued = await c.reportConflict({ old_node_id: old.id, new_content: "We deploy to us-east-1", note: "seen in CI" });
    assert.equal(queued.detection.tier, "manual");
    const again = await c.reportConflict({ old_node_id: old.id, new_content: "We deploy to us-east-1" });
    assert.equal(again.id, queued.id);
    const done = await c.resolve(queued.id, "keep_both", { note: "both regions are used" });
    assert.ok(done.ok && done.new_node_id);
    assert.equal((await c.node(done.new_node_id)).body, "We deploy to us-east-1");
  });

  test("resolve, replay, revert, history, merge", async () => {
    const c = client();
    const scope = newScope();
    const pair = await contradiction(c, scope);
    const done = await c.resolve(pair.conflictId, "new_is_current", { resolved_by: "ada", note: "newer" });
    assert.ok(done.ok && !done.replayed);
    // The same decision again (a new Idempotency-Key: a second call) replays it.
    assert.equal((await c.resolve(pair.conflictId, "new_is_current")).replayed, true);
    const conflict = await c.conflict(pair.conflictId);
    assert.equal(conflict.status, "resolved");
    assert.equal(conflict.resolved_by, "ada");

    const undone = await c.revert(pair.conflictId, { reverted_by: "grace", note: "wrong pair" });
    assert.equal(undone.reverted, "new_is_current");
    assert.equal((await c.node(pair.oldId)).state, "active");
    const history = ok(await c.raw.GET("/conflicts/{id}/history", { params: { path: { id: pair.conflictId } } }));
    assert.deepEqual(history.items.map((e) => e.kind), ["queued", "resolved", "reverted"]);

    const merged = await c.resolve(pair.conflictId, "merge", { merged_content: "The timeout is 60 s now" });
    assert.equal(merged.resolution, "merge");
    assert.equal((await c.node(pair.oldId)).body, "The timeout is 60 s now");
  });

  test("resolve by body: old_is_current", async () => {
    const c = client();
    const pair = await contradiction(c, newScope());
    const done = ok(
      await c.raw.POST("/contradiction/resolve", { body: { conflict_id: pair.conflictId, resolution: "old_is_current" } }),
    );
    assert.equal(done.resolution, "old_is_current");
    assert.equal((await c.node(pair.newId)).state, "dormant");
  });

  test("topic report, reports, sources, policies", async () => {
    const c = client();
    const scope = newScope();
    const pair = await contradiction(c, scope);
    const topic = (await c.node(pair.oldId)).title;
    const report = ok(await c.raw.POST("/conflicts/check", { body: { topic, scope } }));
    assert.ok(report.sources_analyzed >= 2);
    const reports = ok(await c.raw.GET("/reports", { params: { query: { limit: 50 } } }));
    assert.ok(reports.items.some((r) => r.id === report.id));
    await c.resolve(pair.conflictId, "new_is_current");
    assert.ok(Array.isArray(ok(await c.raw.GET("/sources")).items));
    const policies = ok(await c.raw.GET("/policies"));
    assert.deepEqual(policies.rules, []);
  });
});
