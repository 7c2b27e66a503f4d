/** Runs last: fails naming every operation of openapi/openapi.json that no test sent a request
 * to. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { EXERCISED, specOperations } from "./support.js";

/** Operations no test reaches yet, each with the reason; reported, never silently skipped. */
export const NOT_YET_EXERCISED: ReadonlyMap<string, string> = new Map();

const partial = [...process.execArgv, ...process.argv].some((a) => a.startsWith("--test-name-pattern") || a === "--test-only");

test("every operation was exercised", { skip: partial ? "only a part of the suite ran" : false }, () => {
  const missing = specOperations()
    .filter((op) => !EXERCISED.has(op) && !NOT_YET_EXERCISED.has(op))
    .sort();
  assert.deepEqual(missing, [], "operations no test exercised:\n  " + missing.join("\n  "));
  const stale = [...NOT_YET_EXERCISED.keys()].filter((op) => EXERCISED.has(op));
  assert.deepEqual(stale, [], "exercised now: drop them from NOT_YET_EXERCISED");
});
