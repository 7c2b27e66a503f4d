/** Retries: the same Idempotency-Key on every attempt, back-off that honours Retry-After, and a
 * write retried across a server restart that executes once. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AlreadyResolved,
  Concord,
  NO_RETRY,
  StorageFull,
  Unavailable,
  type RetryOptions,
} from "../src/index.js";
import { Recorder, newScope, server, sleep } from "./support.js";

function problem(status: number, code: string, retryAfter?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (retryAfter) headers["retry-after"] = retryAfter;
  const body = { type: `/problems/${code}`, title: code, status, detail: code, request_id: "r" };
  return new Response(JSON.stringify(body), { status, headers });
}

const NODE_ID = "01a21e3e-c0f5-7126-bc1f-59da2fea6515";
const ME = { name: "k", role: "admin", scopes: ["*"], permissions: ["read"] };
const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A client whose server is a list of answers, and which notes its waits instead of waiting. */
function scripted(answers: Array<Response | Error>, retry: RetryOptions = NO_RETRY) {
  const seen: Request[] = [];
  const waits: number[] = [];
  const c = new Concord("http://concord.test", {
    apiKey: "k",
    retry,
    sleep: async (s) => void waits.push(s),
    fetch: async (request) => {
      seen.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("no answer left");
      if (answer instanceof Error) throw answer;
      return answer;
    },
  });
  return { c, seen, waits };
}

describe("retries", () => {
  test("retries keep one key and honour Retry-After", async () => {
    const { c, seen, waits } = scripted(
      [
        new TypeError("fetch failed"),
        problem(503, "unavailable", "2"),
        problem(429, "too-many-failed-keys", "1"),
        problem(409, "idempotency-in-flight", "1"),
        problem(507, "storage-full", "3"),
        json(201, { node: { id: NODE_ID } }),
      ],
      { attempts: 5, backoff: 0.01 },
    );
    const written = await c.remember({ title: "t" });
    assert.equal(written.node.id, NODE_ID);
    assert.equal(seen.length, 6);
    assert.equal(new Set(seen.map((r) => r.headers.get("idempotency-key"))).size, 1);
    assert.equal(seen[0]?.headers.get("authorization"), "Bearer k");
    assert.ok((waits[0] ?? 1) < 0.02);
    assert.deepEqual(waits.slice(1), [2, 1, 1, 3]);
  });

  test("each call has its own key and reads have none", async () => {
    const { c, seen, waits } = scripted([json(201, {}), json(201, {}), json(200, ME), new Response(null, { status: 204 })]);
    await c.remember({ title: "t" });
    await c.remember({ title: "t" });
    assert.equal((await c.me()).role, "admin");
    await c.forget(NODE_ID);
    assert.notEqual(seen[0]?.headers.get("idempotency-key"), seen[1]?.headers.get("idempotency-key"));
    assert.equal(seen[2]?.headers.get("idempotency-key"), null);
    assert.ok(seen[3]?.headers.get("idempotency-key"), "DELETE carries a key");
    assert.deepEqual(waits, []);
  });

  test("giving up throws the typed error", async () => {
    let s = scripted([problem(503, "unavailable"), problem(503, "unavailable"), problem(503, "unavailable")], { attempts: 2, backoff: 0.01 });
    const e = await s.c.node(NODE_ID).catch((x: unknown) => x);
    assert.ok(e instanceof Unavailable && e.retryable);
    assert.equal(s.seen.length, 3);
    // A Retry-After longer than the client will wait ends the retries at once.
    s = scripted([problem(507, "storage-full", "30")], { maxRetryAfter: 5 });
    const full = await s.c.remember({ title: "t" }).catch((x: unknown) => x);
    assert.ok(full instanceof StorageFull);
    assert.equal(full.retryAfter, 30);
    assert.equal(s.seen.length, 1);
    s = scripted([new TypeError("fetch failed")]);
    await assert.rejects(s.c.node(NODE_ID), TypeError);
    // Other 409s are answers, not reasons to wait.
    s = scripted([problem(409, "already-resolved")], { backoff: 0.01 });
    await assert.rejects(s.c.resolve(NODE_ID, "keep_both"), AlreadyResolved);
    assert.equal(s.seen.length, 1);
  });

  for (const deliverFirst of [true, false]) {
    test(`a write retried across a restart executes once (${deliverFirst ? "reply lost" : "never arrived"})`, async () => {
      const recorder = new Recorder();
      let restarted: Promise<void> | undefined;
      // On the first POST /nodes: deliver it (or not) and lose the reply, then take the server
      // down and bring it back a second later, while the client keeps retrying.
      recorder.before = async (request) => {
        if (request.method !== "POST" || new URL(request.url).pathname !== "/nodes" || restarted) return undefined;
        if (deliverFirst) {
          const reply = await fetch(request.clone());
          assert.equal(reply.status, 201, await reply.text());
        }
        await server.stop();
        restarted = sleep(1000).then(() => server.start());
        throw new TypeError("the connection dropped before the reply arrived");
      };
      const c = new Concord(server.url, {
        apiKey: server.adminKey,
        retry: { attempts: 60, backoff: 0.05, maxBackoff: 0.5 },
        fetch: recorder.fetch,
      });
      const scope = newScope();
      const written = await c.remember({ title: "Restart proof", body: "written exactly once", scope });
      await restarted;
      const posts = recorder.attempts.filter((r) => r.method === "POST");
      assert.ok(posts.length >= 3, "the call did not retry while the server was down");
      assert.equal(new Set(posts.map((r) => r.headers.get("idempotency-key"))).size, 1);
      const stored = [];
      for await (const n of c.nodes({ scope })) stored.push(n.id);
      assert.deepEqual(stored, [written.node.id]);
    });
  }
});
