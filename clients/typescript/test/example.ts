/** examples/typescript, run as a user would, against the live server: it checks its own
 * outcome and exits non-zero when it is wrong. */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { server } from "./support.js";

// The compiled example sits beside the compiled tests (build/examples/typescript).
const BUILD = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

test("examples/typescript/agent_loop.ts", async () => {
  const script = join(BUILD, "examples", "typescript", "agent_loop.js");
  const args = [script, "--url", server.url, "--key", server.adminKey];
  const done = await promisify(execFile)(process.execPath, args, { timeout: 120_000 }).catch(
    (e: { stdout?: string; stderr?: string; code?: number }) => assert.fail(`exit ${e.code}: ${e.stdout}${e.stderr}`),
  );
  assert.match(done.stdout, /agent_loop: OK/);
});
