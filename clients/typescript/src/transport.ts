/**
 * The fetch every request goes through: the key, an `Idempotency-Key` on writes that each retry
 * repeats, retries with back-off, and problem details turned into typed errors.
 */

import { ConcordError, IN_FLIGHT, RETRY_STATUSES, errorFromResponse, retryAfterSeconds } from "./errors.js";

export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (0: none). */
  attempts?: number;
  /** First wait, in seconds; it doubles up to `maxBackoff`. */
  backoff?: number;
  maxBackoff?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
  maxRetryAfter?: number;
}

export type Retry = Required<RetryOptions>;

export const DEFAULT_RETRY: Retry = { attempts: 5, backoff: 0.25, maxBackoff: 8, maxRetryAfter: 60 };
export const NO_RETRY: Retry = { ...DEFAULT_RETRY, attempts: 0 };

export type Sleep = (seconds: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (seconds, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = (): void => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const timer = setTimeout(done, seconds * 1000);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });

/** Doubling from `backoff` with jitter (so restarted clients do not return in step), never
 * shorter than the server's `Retry-After`. */
export function backoffDelay(retry: Retry, failures: number, retryAfter: number | null): number {
  const exp = Math.min(retry.maxBackoff, retry.backoff * 2 ** failures);
  const jittered = exp / 2 + Math.random() * (exp / 2);
  return Math.max(jittered, retryAfter ?? 0);
}

const WRITES = new Set(["POST", "PATCH", "PUT", "DELETE"]);

export interface TransportOptions {
  apiKey?: string | undefined;
  retry: Retry;
  fetch: FetchLike;
  sleep: Sleep;
}

/** A network failure as opposed to an answer: fetch rejects with a TypeError then. An abort by
 * the caller is never retried. */
function isNetworkError(e: unknown): boolean {
  return e instanceof TypeError;
}

export function concordFetch(options: TransportOptions): FetchLike {
  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    if (options.apiKey !== undefined && !headers.has("authorization")) {
      headers.set("authorization", `Bearer ${options.apiKey}`);
    }
    // The key is fixed before the first attempt so that every retry carries the same one and
    // concord executes the write once, whichever attempt reached it.
    if (WRITES.has(request.method) && !headers.has("idempotency-key")) {
      headers.set("idempotency-key", crypto.randomUUID());
    }
    const template = new Request(request, { headers });
    const { retry } = options;
    for (let failures = 0; ; failures++) {
      const canRetry = failures < retry.attempts && !request.signal.aborted;
      let response: Response;
      try {
        response = await options.fetch(template.clone());
      } catch (e) {
        if (canRetry && isNetworkError(e)) {
          await options.sleep(backoffDelay(retry, failures, null), request.signal);
          continue;
        }
        throw e;
      }
      if (response.ok) return response;
      const text = await response.text();
      const error = errorFromResponse(response, text);
      const transient = RETRY_STATUSES.has(response.status) || error.type === IN_FLIGHT;
      const retryAfter = retryAfterSeconds(response.headers);
      if (canRetry && transient && (retryAfter === null || retryAfter <= retry.maxRetryAfter)) {
        await options.sleep(backoffDelay(retry, failures, retryAfter), request.signal);
        continue;
      }
      throw error;
    }
  };
}
