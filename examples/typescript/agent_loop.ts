/**
 * An agent's memory loop with concord: remember a fact, learn from the reply that an update
 * contradicts it, decide (or hand the decision to a person), then recall what is current.
 *
 *     cd clients/typescript && npm ci && npx tsc
 *     node build/examples/typescript/agent_loop.js --url http://127.0.0.1:8080 [--key KEY]
 *
 * Each run writes into a scope of its own, so runs never meet. It checks every outcome and
 * exits non-zero when one is not what concord promises.
 */

import { parseArgs } from "node:util";
// In an application: import { Concord, … } from "concord-client";
import {
  Concord,
  type ConflictHitDto,
  type NodeWriteResponse,
  type Resolution,
} from "../../clients/typescript/src/index.js";

const WHO = "agent-loop";
// Labels whose conflicts concord never lets a rule decide; the agent does not either.
const FOR_A_PERSON = new Set(["security", "data-integrity", "breaking-change"]);
const STRATEGIES: ReadonlySet<string> = new Set(["new_is_current", "old_is_current", "keep_both", "merge"]);

function fail(what: string): never {
  console.error(`agent_loop: FAILED: ${what}`);
  process.exit(1);
}

function expect(condition: boolean, what: string): void {
  if (!condition) fail(what);
}

/** The agent's rule: follow concord when it recommends a strategy; when it leaves the choice
 * open, a newer reading of the same number wins; memories labelled for a person, and anything
 * else, go to the review console. */
function decide(hit: ConflictHitDto, labels: string[]): Resolution | null {
  if (labels.some((l) => FOR_A_PERSON.has(l))) return null;
  const strategy = hit.recommendation.strategy;
  if (strategy && STRATEGIES.has(strategy)) return strategy as Resolution;
  if (hit.conflict_type === "numeric-mismatch") return "new_is_current";
  return null;
}

async function remember(c: Concord, scope: string, title: string, body: string, label: string): Promise<NodeWriteResponse> {
  const written = await c.remember({ title, body, scope, labels: [label], source: "agent:notes" });
  if ("restated" in written) fail(`${JSON.stringify(body)} was taken for a restatement of a stored memory`);
  console.log(`remembered  ${JSON.stringify(body)}`);
  return written;
}

/** Decides the conflicts a write reported; returns those left for a person. */
async function handle(c: Concord, written: NodeWriteResponse): Promise<string[]> {
  if (!written.conflicts?.length) fail(`${JSON.stringify(written.node.body)} reported no conflict`);
  const left: string[] = [];
  for (const hit of written.conflicts) {
    if (!hit.conflict_id) fail("a conflict came without its id");
    const r = hit.recommendation;
    console.log(`conflict    ${hit.conflict_type}: concord recommends ${r.resolution} (${r.reasoning})`);
    const strategy = decide(hit, written.node.labels);
    if (strategy === null) {
      left.push(hit.conflict_id);
      console.log("            -> left for a person in the review console");
      continue;
    }
    const done = await c.resolve(hit.conflict_id, strategy, { resolved_by: WHO, note: "the newer reading wins" });
    console.log(`            -> ${strategy}: ` + done.actions.map((a) => a.summary).join("; "));
  }
  return left;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: "http://127.0.0.1:8080" },
      key: { type: "string" },
      scope: { type: "string" },
    },
  });
  const scope = values.scope ?? `agent-demo-${crypto.randomUUID().slice(0, 8)}`;
  const c = new Concord(values.url ?? "http://127.0.0.1:8080", { apiKey: values.key });

  await remember(c, scope, "Cache TTL", "The cache TTL is 30 seconds", "cache");
  const update = await remember(c, scope, "Cache TTL", "The cache TTL is 60 seconds", "cache");
  await remember(c, scope, "Password rotation", "Passwords rotate every 90 days", "security");
  const rotation = await remember(c, scope, "Password rotation", "Passwords rotate every 30 days", "security");
  expect((await handle(c, update)).length === 0, "the agent decided the cache conflict itself");
  const forAPerson = await handle(c, rotation);
  expect(forAPerson.length === 1, "the security conflict went to a person");

  const cache = await c.recall("cache TTL", { scope });
  const bodies = cache.sources.map((s) => s.source_text);
  console.log(`recall      cache TTL -> ${JSON.stringify(bodies)}`);
  expect(JSON.stringify(bodies) === JSON.stringify(["The cache TTL is 60 seconds"]), "recall shows only the current TTL");
  expect(!cache.conflicts?.length, "recall reports no disagreement about the TTL any more");

  const rotationRecall = await c.recall("passwords rotate", { scope });
  const flagged = (rotationRecall.conflicts ?? []).map((x) => x.conflict_id);
  console.log(`recall      passwords rotate -> pending conflicts ${JSON.stringify(flagged)}`);
  expect(JSON.stringify(flagged) === JSON.stringify(forAPerson), "recall flags the conflict a person must decide");
  const queue: string[] = [];
  for await (const x of c.conflicts({ scope })) queue.push(x.id);
  expect(JSON.stringify(queue) === JSON.stringify(forAPerson), "the review queue holds the security conflict alone");
  console.log("agent_loop: OK");
}

main().catch((e: unknown) => fail(String(e instanceof Error ? (e.stack ?? e.message) : e)));
