/**
 * A live concord for the tests: `concord serve` on a free loopback port with an admin key,
 * against the database named by CONCORD_TEST_DATABASE_URL (scripts/test-clients-ts gives a
 * fresh SQLite file or PostgreSQL database; without it, a SQLite file in a temporary folder).
 *
 * Every attempt the tests send goes through `Recorder`, which notes the OpenAPI operation it
 * exercised, so the last test can fail on any operation no test called.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Concord, type ConcordOptions, type NodeWriteResponse } from "../src/index.js";

function findRepo(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "openapi", "openapi.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("openapi/openapi.json not found above the tests");
    dir = up;
  }
  return dir;
}

export const REPO = findRepo();
const SPEC = JSON.parse(readFileSync(join(REPO, "openapi", "openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, unknown>>;
};
const METHODS = ["get", "put", "post", "patch", "delete"];

export function specOperations(): string[] {
  return Object.entries(SPEC.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

// Literal paths first, so /conflicts/wake is not taken for /conflicts/{id}.
const TEMPLATES = Object.keys(SPEC.paths)
  .map((path) => {
    const source = path
      .split(/(\{[^}]+\})/)
      .map((p) => (p.startsWith("{") ? "[^/]+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    return { path, holes: path.split("{").length - 1, pattern: new RegExp(`^${source}$`) };
  })
  .sort((a, b) => a.holes - b.holes || a.path.localeCompare(b.path));

export function operationOf(method: string, pathname: string): string | null {
  const hit = TEMPLATES.find((t) => t.pattern.test(pathname));
  return hit ? `${method} ${hit.path}` : null;
}

export const EXERCISED = new Set<string>();

/** The real fetch, noting each attempt (after the client set its headers). `before` may stand
 * in for a request: it returns a response, throws, or returns undefined to send it. */
export class Recorder {
  attempts: Request[] = [];
  statuses: Array<[string, number]> = [];
  before: ((request: Request) => Promise<Response | undefined>) | undefined;

  readonly fetch = async (request: Request): Promise<Response> => {
    this.attempts.push(request.clone());
    const url = new URL(request.url);
    const op = operationOf(request.method, url.pathname);
    if (op !== null) EXERCISED.add(op);
    const answer = this.before ? await this.before(request) : undefined;
    if (answer !== undefined) return answer;
    const response = await fetch(request);
    this.statuses.push([url.pathname, response.status]);
    return response;
  };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Server {
  readonly url: string;
  readonly adminKey = "admin-" + crypto.randomUUID().replaceAll("-", "");
  private proc: ChildProcess | null = null;

  constructor(
    readonly binary: string,
    readonly databaseUrl: string,
    readonly workdir: string,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    if (this.proc) throw new Error("already running");
    const log = openSync(join(this.workdir, "concord.log"), "a");
    const args = ["serve", "--database-url", this.databaseUrl, "--bind", `127.0.0.1:${this.port}`];
    const proc = spawn(this.binary, [...args, "--api-keys", this.adminKey], {
      cwd: this.workdir,
      stdio: ["ignore", log, log],
      env: { ...process.env, CONCORD_LOG: process.env["CONCORD_LOG"] ?? "warn" },
    });
    closeSync(log);
    this.proc = proc;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) {
        throw new Error(`concord exited with ${proc.exitCode}: ${this.logTail()}`);
      }
      try {
        if ((await fetch(this.url + "/healthz")).status === 200) return;
      } catch {
        // Not listening yet.
      }
      await sleep(100);
    }
    throw new Error("concord did not come up within 60 s: " + this.logTail());
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    const killer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(killer);
  }

  logTail(): string {
    const path = join(this.workdir, "concord.log");
    return existsSync(path) ? readFileSync(path, "utf8").slice(-3000) : "";
  }
}

const workdir = mkdtempSync(join(tmpdir(), "concord-client-ts-"));
export const server = new Server(
  process.env["CONCORD_BIN"] ?? resolve(REPO, "target", "debug", "concord"),
  process.env["CONCORD_TEST_DATABASE_URL"] || `sqlite://${workdir}/concord.db`,
  workdir,
  await freePort(),
);
await server.start();

export async function shutdown(): Promise<void> {
  await server.stop();
  rmSync(workdir, { recursive: true, force: true });
}

/** Tests fail fast rather than wait out a server that is gone; the restart tests ask for more. */
export const FAST_RETRY = { attempts: 3, backoff: 0.05, maxBackoff: 0.5 };

export function client(options: ConcordOptions & { recorder?: Recorder } = {}): Concord {
  const recorder = options.recorder ?? new Recorder();
  return new Concord(server.url, {
    apiKey: server.adminKey,
    retry: FAST_RETRY,
    fetch: recorder.fetch,
    ...options,
  });
}

/** A scope of the test's own: detection, queues and wake-ups stay inside a scope, so tests
 * sharing the server do not see each other's conflicts. */
export function newScope(): string {
  return "t-" + crypto.randomUUID().slice(0, 12);
}

/** Made-up words (letters only: digits would read as values that changed), so memories of
 * different tests share too few words to be compared. */
export function words(n: number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  return Array.from({ length: n }, () =>
    Array.from({ length: 6 + Math.floor(Math.random() * 4) }, () =>
      letters.charAt(Math.floor(Math.random() * 26)),
    ).join(""),
  ).join(" ");
}

export interface Pair {
  oldId: string;
  newId: string;
  conflictId: string;
}

/** Two memories whose numbers disagree: concord queues a numeric-mismatch between them. */
export async function contradiction(c: Concord, scope: string, labels?: string[]): Promise<Pair> {
  const topic = words(5);
  const old = await c.remember({ title: topic, body: `The ${topic} timeout is 30 seconds`, scope, labels: labels ?? null });
  const fresh = (await c.remember({
    title: topic,
    body: `The ${topic} timeout is 60 seconds`,
    scope,
    labels: labels ?? null,
  })) as NodeWriteResponse;
  const hits = fresh.conflicts ?? [];
  if (hits.length !== 1 || !hits[0]?.conflict_id) {
    throw new Error("expected one queued conflict: " + JSON.stringify(fresh));
  }
  return { oldId: old.node.id, newId: fresh.node.id, conflictId: hits[0].conflict_id };
}
