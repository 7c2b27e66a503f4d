/** The wake loop and the event stream, both across a server restart. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ConcordEvent } from "../src/index.js";
import { Recorder, client, contradiction, newScope, server, sleep } from "./support.js";

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!predicate()) {
    assert.ok(Date.now() < deadline, what);
    await sleep(50);
  }
}

describe("wake and events", () => {
  test("waitForConflicts yields each once across a restart", async () => {
    const recorder = new Recorder();
    const c = client({ recorder });
    const scope = newScope();
    const seen: string[] = [];
    const stop = new AbortController();
    const daemon = (async () => {
      for await (const batch of c.waitForConflicts({ scope, wait: 1, maxConflicts: 2, signal: stop.signal })) {
        seen.push(...batch.conflicts.map((x) => x.id));
        if (seen.length >= 4) return;
      }
    })();
    await sleep(1500); // long enough for one empty long poll (204)
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await contradiction(c, scope));
    await until(() => seen.length >= 3, `saw ${seen.join()}`);
    await server.stop();
    await sleep(500); // the loop meets a closed port and keeps reconnecting
    await server.start();
    const last = await contradiction(c, scope);
    await until(() => seen.length >= 4, `saw ${seen.join()}`);
    stop.abort();
    await daemon;
    assert.deepEqual(seen, [...first, last].map((p) => p.conflictId));
    assert.ok(recorder.statuses.some(([p, s]) => p === "/conflicts/wake" && s === 204));
  });

  test("events resume with Last-Event-ID after a restart", async () => {
    const recorder = new Recorder();
    const resumedFrom: Array<string | null> = [];
    recorder.before = async (request) => {
      if (new URL(request.url).pathname === "/events") resumedFrom.push(request.headers.get("last-event-id"));
      return undefined;
    };
    const c = client({ recorder });
    const scope = newScope();
    const before = await contradiction(c, scope);
    const mine = new Set([before.conflictId]);
    // From the start of the log, so nothing depends on when the connection opens.
    const stream = c.events({ lastEventId: 0 });
    const upTo = async (conflictId: string): Promise<ConcordEvent[]> => {
      const got: ConcordEvent[] = [];
      for (;;) {
        const { value, done } = await stream.next();
        assert.ok(!done, "the stream ended");
        got.push(value);
        if (value.type === "conflict.created" && value.data.conflict_id === conflictId) return got;
      }
    };
    const replayed = await upTo(before.conflictId);
    const lastBeforeDrop = replayed.at(-1)?.id;
    assert.ok(typeof lastBeforeDrop === "number");

    await server.stop(); // drops the connection; the generator notices when it reads on
    await server.start();
    const after = [await contradiction(c, scope), await contradiction(c, scope)];
    for (const p of after) mine.add(p.conflictId);
    const resumed = await upTo(after[1]!.conflictId);

    const ids = [...replayed, ...resumed].map((e) => e.id ?? -1);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "an event came out of order");
    assert.equal(new Set(ids).size, ids.length, "an event came twice");
    const ours = resumed.map((e) => e.data.conflict_id).filter((id) => id && mine.has(id));
    assert.deepEqual(ours, after.map((p) => p.conflictId));
    assert.equal(resumedFrom[0], "0");
    assert.ok(resumedFrom.length >= 2);
    // Reconnected after the last event it had yielded, not from the start or from now.
    assert.ok(Number(resumedFrom.at(-1) ?? -1) >= lastBeforeDrop);
    await stream.return(undefined);
  });
});
