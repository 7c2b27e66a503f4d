/** Memories and edges: the node operations, through the hand-written methods where there is
 * one and through the generated operations (`raw`) for the rest. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NotFound, ok, type NodeRestatedResponse, type NodeWriteResponse } from "../src/index.js";
import { client, contradiction, newScope } from "./support.js";

describe("memories", () => {
  test("remember, read, patch, versions, forget", async () => {
    const c = client();
    const scope = newScope();
    const written = (await c.remember({
      title: "Deploy day",
      body: "Deploys happen on Tuesdays",
      labels: ["Ops", "ops"],
      scope,
    })) as NodeWriteResponse;
    const node = written.node;
    assert.deepEqual(node.labels, ["ops"]);
    assert.equal(node.scope, scope);
    assert.equal((await c.node(node.id)).body, "Deploys happen on Tuesdays");

    const patched = await c.updateNode(node.id, { confidence: 0.9, labels: ["ops", "x"] });
    assert.equal(patched.confidence, 0.9);
    const path = { id: node.id };
    const versions = ok(await c.raw.GET("/nodes/{id}/versions", { params: { path } }));
    assert.deepEqual(versions.items.map((v) => v.version), [1, 2]);
    const first = ok(await c.raw.GET("/nodes/{id}/versions/{version}", { params: { path: { ...path, version: 1 } } }));
    assert.equal(first.confidence, 0.8);

    await c.forget(node.id);
    await assert.rejects(c.node(node.id), NotFound);
    // A deleted memory keeps its versions.
    const kept = ok(await c.raw.GET("/nodes/{id}/versions/{version}", { params: { path: { ...path, version: 2 } } }));
    assert.equal(kept.version, 2);
  });

  test("a restatement is not stored twice", async () => {
    const c = client();
    const scope = newScope();
    const first = await c.remember({ title: "Office", body: "The office is in Berlin", scope, source: "a" });
    const again = (await c.remember({ title: "office", body: "The office is in  Berlin", scope, source: "b" })) as NodeRestatedResponse;
    assert.equal(again.restated, true);
    assert.equal(again.node.id, first.node.id);
    assert.deepEqual(again.corroborated_by, ["b"]);
    const copy = await c.remember({ title: "Office", body: "The office is in Berlin", scope }, { allow_duplicate: true });
    assert.notEqual(copy.node.id, first.node.id);
  });

  test("node paging follows the cursor", async () => {
    const c = client();
    const scope = newScope();
    const label = "page-" + crypto.randomUUID().slice(0, 8);
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++) {
      ids.add((await c.remember({ title: `Paged memory ${i} ${label}`, body: `entry ${i}`, scope, labels: [label] })).node.id);
    }
    const listed = [];
    for await (const n of c.nodes({ label, scope, limit: 3 })) listed.push(n);
    assert.equal(listed.length, 7);
    assert.deepEqual(new Set(listed.map((n) => n.id)), ids);
    const times = listed.map((n) => n.created_at);
    assert.deepEqual(times, [...times].sort().reverse(), "newest first without q");
  });

  test("batch, edges, check", async () => {
    const c = client();
    const scope = newScope();
    const written = ok(
      await c.raw.POST("/nodes/batch", {
        body: {
          nodes: [
            { title: "Queue size", body: "The queue holds 100 jobs", ref: "q", scope },
            { title: "Worker", body: "The worker drains the queue", ref: "w", scope },
          ],
          edges: [{ source: "w", target: "q", kind: "depends_on" }],
        },
      }),
    );
    const [queue, worker] = written.nodes.map((n) => n.node);
    assert.ok(queue && worker);
    assert.equal(written.edges[0]?.kind, "depends_on");
    const edge = ok(await c.raw.POST("/edges", { body: { source_id: queue.id, target_id: worker.id, kind: "relates_to" } }));
    const both = ok(await c.raw.GET("/nodes/{id}/edges", { params: { path: { id: queue.id }, query: { direction: "both" } } }));
    assert.ok(both.items.some((e) => e.id === edge.id));
    const out = ok(await c.raw.GET("/nodes/{id}/edges", { params: { path: { id: queue.id }, query: { direction: "out" } } }));
    assert.deepEqual(out.items.map((e) => e.id), [edge.id]);

    // A check reports the node's pending conflicts and writes nothing.
    const pair = await contradiction(c, scope);
    const checked = ok(await c.raw.POST("/nodes/{id}/check", { params: { path: { id: pair.newId } } }));
    assert.deepEqual(checked.conflicts?.map((h) => h.conflict_id), [pair.conflictId]);
  });

  test("recall and timeline", async () => {
    const c = client();
    const scope = newScope();
    const pair = await contradiction(c, scope);
    const topic = (await c.node(pair.oldId)).title;
    let recalled = await c.recall(topic, { scope });
    assert.ok(recalled.sources.some((s) => s.id === pair.oldId));
    assert.equal(recalled.conflicts?.[0]?.conflict_id, pair.conflictId);

    await c.resolve(pair.conflictId, "new_is_current", { resolved_by: "tests" });
    assert.equal((await c.node(pair.oldId)).state, "dormant");
    recalled = await c.recall(topic, { scope });
    assert.deepEqual(recalled.sources.map((s) => s.id), [pair.newId]);
    const timeline = ok(await c.raw.GET("/nodes/{id}/timeline", { params: { path: { id: pair.newId } } }));
    assert.deepEqual(timeline.entries.map((e) => e.node.id), [pair.oldId, pair.newId]);
  });
});
