/**
 * concord's RFC 9457 problem details as exceptions: one class per problem type.
 *
 * Every error response becomes a `ConcordError` inside the client's fetch, before
 * openapi-fetch parses anything, so `catch (e) { if (e instanceof ScopeForbidden) … }` works
 * the same for the hand-written methods and for the generated operations on `concord.raw`.
 */

import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];
export type FieldError = components["schemas"]["FieldErrorDto"];

export const PROBLEM_PREFIX = "/problems/";
export const IN_FLIGHT = PROBLEM_PREFIX + "idempotency-in-flight";
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503, 507]);

export interface ConcordErrorInit {
  status: number;
  type: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  requestId?: string | null;
  retryAfter?: number | null;
  body?: Record<string, unknown>;
}

/** An error response. `type` is the problem type (e.g. `/problems/not-found`); `body` the whole
 * problem document, extension members (`current`, `changes`, `node_id`, …) included. */
export class ConcordError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[];
  readonly requestId: string | null;
  readonly retryAfter: number | null;
  readonly body: Record<string, unknown>;

  constructor(init: ConcordErrorInit) {
    super(`${init.status} ${init.type}: ${init.detail || init.title}`);
    this.name = new.target.name;
    this.status = init.status;
    this.type = init.type;
    this.title = init.title;
    this.detail = init.detail ?? "";
    this.errors = init.errors ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.body = init.body ?? {};
  }

  /** Whether the same request may succeed later (the client's own retries gave up). */
  get retryable(): boolean {
    return RETRY_STATUSES.has(this.status) || this.status >= 500 || this.type === IN_FLIGHT;
  }
}

/** 400: the body is not JSON. */
export class MalformedJson extends ConcordError {}
/** 400: the request head is not valid HTTP/1.1. */
export class MalformedRequest extends ConcordError {}
/** 401: no valid `Authorization: Bearer <key>` (none, wrong or revoked). */
export class Unauthorized extends ConcordError {}
/** 403: the key's role may not do this. */
export class RoleForbidden extends ConcordError {}
/** 403: the key does not hold the scope written into. */
export class ScopeForbidden extends ConcordError {}
/** 403: `/mcp` called from a browser page of another origin. */
export class ForeignOrigin extends ConcordError {}
/** 404: unknown id or route (an id of a scope the key lacks looks the same). */
export class NotFound extends ConcordError {}
/** 405. */
export class MethodNotAllowed extends ConcordError {}
/** 409: a different resolution for a resolved conflict; `body.current` holds the recorded one. */
export class AlreadyResolved extends ConcordError {}
/** 409 `/problems/stale-conflict`: the node the strategy keeps current is no longer active
 * (`body.node_id`, `body.node_state`); nothing was written. */
export class ConflictStale extends ConcordError {}
/** 409: a revert of a pending conflict. */
export class NotResolved extends ConcordError {}
/** 409: later changes are in the way of a revert (`body.changes`); nothing was written. */
export class RevertConflict extends ConcordError {}
/** 409: `POST /keys` with a name already taken. */
export class KeyExists extends ConcordError {}
/** 409: a sweep runs already (`body.sweep_id`). */
export class SweepRunning extends ConcordError {}
/** 409: a request with this `Idempotency-Key` is still running. */
export class IdempotencyInFlight extends ConcordError {}
/** 413. */
export class PayloadTooLarge extends ConcordError {}
/** 414. */
export class UriTooLong extends ConcordError {}
/** 415: not `Content-Type: application/json`. */
export class UnsupportedMediaType extends ConcordError {}
/** 421: a key-less server does not answer to this `Host`. */
export class ForeignHost extends ConcordError {}
/** 422: invalid values; `errors` lists `{pointer, detail}`. */
export class ValidationError extends ConcordError {}
/** 422: an `Idempotency-Key` reused with another request. */
export class IdempotencyKeyReuse extends ConcordError {}
/** 429: too many failed keys from this address; see `retryAfter`. */
export class TooManyFailedKeys extends ConcordError {}
/** 431. */
export class HeadersTooLarge extends ConcordError {}
/** 500: a server fault (details only in the server's log, under `requestId`). */
export class InternalError extends ConcordError {}
/** 500/503: a resolution step failed and everything was rolled back. */
export class ResolutionFailed extends ConcordError {}
/** 500/503: a revert step failed and everything was rolled back. */
export class RevertFailed extends ConcordError {}
/** 503: the database is unreachable. */
export class Unavailable extends ConcordError {}
/** 503: another writer held the database's lock too long; nothing was written. */
export class Busy extends ConcordError {}
/** 503: too many requests in flight. */
export class Overloaded extends ConcordError {}
/** 503 `/problems/timeout`: the request ran too long and was rolled back. */
export class RequestTimeout extends ConcordError {}
/** 503: no MCP session slot left. */
export class McpSessionsFull extends ConcordError {}
/** 503: this client holds its share of MCP sessions. */
export class McpClientSessionsFull extends ConcordError {}
/** 507: the database's disk is full; nothing was written. */
export class StorageFull extends ConcordError {}

type ErrorClass = new (init: ConcordErrorInit) => ConcordError;

const CLASSES: Record<string, ErrorClass> = {
  "malformed-json": MalformedJson,
  "malformed-request": MalformedRequest,
  unauthorized: Unauthorized,
  "role-forbidden": RoleForbidden,
  "scope-forbidden": ScopeForbidden,
  "foreign-origin": ForeignOrigin,
  "not-found": NotFound,
  "method-not-allowed": MethodNotAllowed,
  "already-resolved": AlreadyResolved,
  "stale-conflict": ConflictStale,
  "not-resolved": NotResolved,
  "revert-conflict": RevertConflict,
  "key-exists": KeyExists,
  "sweep-running": SweepRunning,
  "idempotency-in-flight": IdempotencyInFlight,
  "payload-too-large": PayloadTooLarge,
  "uri-too-long": UriTooLong,
  "unsupported-media-type": UnsupportedMediaType,
  "foreign-host": ForeignHost,
  validation: ValidationError,
  "idempotency-key-reuse": IdempotencyKeyReuse,
  "too-many-failed-keys": TooManyFailedKeys,
  "headers-too-large": HeadersTooLarge,
  internal: InternalError,
  "resolution-failed": ResolutionFailed,
  "revert-failed": RevertFailed,
  unavailable: Unavailable,
  busy: Busy,
  overloaded: Overloaded,
  timeout: RequestTimeout,
  "mcp-sessions-full": McpSessionsFull,
  "mcp-client-sessions-full": McpClientSessionsFull,
  "storage-full": StorageFull,
};

/** Problem type → class, e.g. `BY_TYPE.get("/problems/not-found") === NotFound`. */
export const BY_TYPE: ReadonlyMap<string, ErrorClass> = new Map(
  Object.entries(CLASSES).map(([code, cls]) => [PROBLEM_PREFIX + code, cls]),
);

/** `Retry-After` in seconds; concord sends delta-seconds, never an HTTP date. */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

/** The error for an error response whose body is `text` (read already: the body is consumed). */
export function errorFromResponse(response: Response, text: string): ConcordError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      body = parsed as Record<string, unknown>;
    }
  } catch {
    // A proxy's HTML error page is still an error: keep the status, drop the body.
  }
  const type = typeof body["type"] === "string" && body["type"] ? body["type"] : "about:blank";
  const cls = BY_TYPE.get(type) ?? ConcordError;
  const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);
  return new cls({
    status: response.status,
    type,
    title: str(body["title"]) ?? response.statusText,
    detail: str(body["detail"]) ?? "",
    errors: Array.isArray(body["errors"]) ? (body["errors"] as FieldError[]) : [],
    requestId: str(body["request_id"]) ?? response.headers.get("x-request-id"),
    retryAfter: retryAfterSeconds(response.headers),
    body,
  });
}

/** A status the operation does not document as a success with a body (e.g. a 204 where a body
 * was expected). */
export class UnexpectedResponse extends Error {
  readonly status: number;
  constructor(status: number, expected: string) {
    super(`expected ${expected}, got status ${status}`);
    this.name = "UnexpectedResponse";
    this.status = status;
  }
}
