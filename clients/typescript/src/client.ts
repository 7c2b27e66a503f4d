/** `Concord`: the generated operations (`raw`) plus the methods every caller would otherwise
 * write again. */

import createClient, { type Client } from "openapi-fetch";
import { ConcordError, UnexpectedResponse } from "./errors.js";
import type { components, paths } from "./schema.js";
import { type ConcordEvent, SseDecoder, lines } from "./sse.js";
import {
  DEFAULT_RETRY,
  type FetchLike,
  type Retry,
  type RetryOptions,
  type Sleep,
  backoffDelay,
  concordFetch,
  sleep as realSleep,
} from "./transport.js";

type S = components["schemas"];
export type NodeDto = S["NodeDto"];
export type NodeWriteResponse = S["NodeWriteResponse"];
export type NodeRestatedResponse = S["NodeRestatedResponse"];
export type PatchNodeRequest = S["PatchNodeRequest"];
export type CreateNodeRequest = S["CreateNodeRequest"];
export type ConflictDto = S["ConflictDto"];
export type ConflictHitDto = S["ConflictHitDto"];
export type Recall = S["Recall"];
export type ResolveResponse = S["ResolveResponse"];
export type RevertResponse = S["RevertResponse"];
export type WakeResponse = S["WakeResponse"];
export type CallerResponse = S["CallerResponse"];
export type NodeState = S["NodeStateDto"];
export type Resolution = "new_is_current" | "old_is_current" | "keep_both" | "merge";

export interface ConcordOptions {
  /** Sent as `Authorization: Bearer <key>` on every request. */
  apiKey?: string | undefined;
  /** Retries of connection failures, 429, 503, 507 and 409 idempotency-in-flight. */
  retry?: RetryOptions;
  /** The fetch underneath (default: the global one), e.g. to add a proxy agent or to observe. */
  fetch?: FetchLike;
  /** How the client waits between attempts; tests replace it to avoid real waits. */
  sleep?: Sleep;
}

interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

/** Every item of every page, fetching the next page only when the iteration gets there. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** The parsed body of a generated call. Error statuses have thrown already, so what is left
 * to catch is a success without a body (e.g. a 204). */
export function ok<T>(result: { data?: T; response: Response }): T {
  if (result.data === undefined) {
    throw new UnexpectedResponse(result.response.status, "a response body");
  }
  return result.data;
}

/** Drops `undefined` members, so optional arguments never reach the query string or the body. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export class Concord {
  /** The generated client (openapi-fetch): every operation of the document, typed, sharing
   * this client's key, retries and errors. */
  readonly raw: Client<paths>;
  readonly retry: Retry;
  /** The fetch with the key, idempotency, retries and typed errors, for requests the document
   * does not describe. Takes a Request; see `request()` for the usual shape. */
  readonly fetch: FetchLike;
  readonly baseUrl: string;
  private readonly sleep: Sleep;

  constructor(baseUrl: string, options: ConcordOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? realSleep;
    const underlying: FetchLike = options.fetch ?? ((r) => globalThis.fetch(r));
    this.fetch = concordFetch({
      apiKey: options.apiKey,
      retry: this.retry,
      fetch: underlying,
      sleep: this.sleep,
    });
    this.raw = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.fetch });
  }

  /** A request by path, through the same key, retries and errors as every other call. */
  request(path: string, init?: RequestInit): Promise<Response> {
    return this.fetch(new Request(this.baseUrl + path, init));
  }

  // Memories

  /** `POST /nodes`. A restatement of a stored memory answers `NodeRestatedResponse`. */
  async remember(
    request: CreateNodeRequest,
    query: { detect?: boolean; sensitivity?: string; allow_duplicate?: boolean } = {},
  ): Promise<NodeWriteResponse | NodeRestatedResponse> {
    return ok(await this.raw.POST("/nodes", { body: request, params: { query: defined(query) } }));
  }

  async node(id: string): Promise<NodeDto> {
    return ok(await this.raw.GET("/nodes/{id}", { params: { path: { id } } }));
  }

  async updateNode(id: string, changes: PatchNodeRequest): Promise<NodeDto> {
    return ok(await this.raw.PATCH("/nodes/{id}", { params: { path: { id } }, body: changes }));
  }

  async forget(id: string): Promise<void> {
    await this.raw.DELETE("/nodes/{id}", { params: { path: { id } } });
  }

  /** Every matching memory, page by page (`limit` is the page size). */
  nodes(
    query: Omit<NonNullable<paths["/nodes"]["get"]["parameters"]["query"]>, "cursor"> = {},
  ): AsyncGenerator<NodeDto> {
    return paginate(async (cursor) =>
      ok(await this.raw.GET("/nodes", { params: { query: defined({ ...query, cursor }) } })),
    );
  }

  async recall(
    q: string,
    query: Omit<paths["/recall"]["get"]["parameters"]["query"], "q"> = {},
  ): Promise<Recall> {
    return ok(await this.raw.GET("/recall", { params: { query: defined({ ...query, q }) } }));
  }

  // Conflicts

  /** Every matching conflict (pending ones by default), page by page. */
  conflicts(
    query: Omit<NonNullable<paths["/conflicts"]["get"]["parameters"]["query"]>, "cursor"> = {},
  ): AsyncGenerator<ConflictDto> {
    return paginate(async (cursor) =>
      ok(await this.raw.GET("/conflicts", { params: { query: defined({ ...query, cursor }) } })),
    );
  }

  async conflict(id: string): Promise<ConflictDto> {
    return ok(await this.raw.GET("/conflicts/{id}", { params: { path: { id } } }));
  }

  /** Queue a contradiction found elsewhere (the existing one if the pair is queued): against
   * a stored memory (`new_node_id`) or a text seen elsewhere (`new_content`). */
  async reportConflict(
    request: { old_node_id: string; conflict_type?: string; note?: string } & (
      | { new_node_id: string }
      | { new_content: string }
    ),
  ): Promise<ConflictDto> {
    const { old_node_id, conflict_type, note } = request;
    const common = defined({ old_node_id, conflict_type, note });
    return ok(
      "new_node_id" in request
        ? await this.raw.POST("/conflicts", { body: { ...common, new_node_id: request.new_node_id } })
        : await this.raw.POST("/conflicts", { body: { ...common, new_content: request.new_content } }),
    );
  }

  /** Apply a strategy in one transaction. A retry of the same decision answers
   * `replayed: true`. `merged_content` belongs to `merge`, `reason` to `old_is_current`. */
  async resolve(
    id: string,
    resolution: Resolution,
    extra: { merged_content?: string; resolved_by?: string; note?: string; reason?: "correction" } = {},
  ): Promise<ResolveResponse> {
    const { merged_content, reason, ...common } = defined(extra);
    const params = { path: { id } };
    const path = "/conflicts/{id}/resolve";
    // One call per strategy: the document ties each strategy to the members it accepts.
    switch (resolution) {
      case "merge":
        return ok(await this.raw.POST(path, { params, body: { ...common, resolution, ...defined({ merged_content }) } }));
      case "old_is_current":
        return ok(await this.raw.POST(path, { params, body: { ...common, resolution, ...defined({ reason }) } }));
      case "new_is_current":
        return ok(await this.raw.POST(path, { params, body: { ...common, resolution } }));
      case "keep_both":
        return ok(await this.raw.POST(path, { params, body: { ...common, resolution } }));
    }
  }

  async revert(id: string, body: S["RevertBody"] = {}): Promise<RevertResponse> {
    return ok(
      await this.raw.POST("/conflicts/{id}/revert", { params: { path: { id } }, body: defined(body) }),
    );
  }

  async me(): Promise<CallerResponse> {
    return ok(await this.raw.GET("/me"));
  }

  // Waiting

  /**
   * Long-polls `GET /conflicts/wake` for ever, yielding each batch of newly pending conflicts
   * once. The cursor of the last batch is kept (also across reconnects), so a conflict is
   * yielded once however the connection fares; `after` starts from a cursor a previous run
   * kept. Errors a retry cannot cure (401, 403, 422) are thrown; `signal` ends the loop.
   */
  async *waitForConflicts(
    options: {
      scope?: string;
      wait?: number;
      maxConflicts?: number;
      previewChars?: number;
      after?: string;
      signal?: AbortSignal;
    } = {},
  ): AsyncGenerator<WakeResponse> {
    let cursor = options.after;
    let failures = 0;
    const signal = options.signal;
    while (!signal?.aborted) {
      let woke: WakeResponse | undefined;
      try {
        const query = defined({
          after: cursor,
          wait: options.wait ?? 30,
          scope: options.scope,
          max: options.maxConflicts,
          preview_chars: options.previewChars,
        });
        const { data } = await this.raw.GET("/conflicts/wake", {
          params: { query },
          ...(signal ? { signal } : {}),
        });
        // Asked without `format=text`, the reply is the JSON one.
        woke = data as WakeResponse | undefined;
      } catch (e) {
        if (signal?.aborted) return;
        if (e instanceof ConcordError ? !e.retryable : !(e instanceof TypeError)) throw e;
        const retryAfter = e instanceof ConcordError ? e.retryAfter : null;
        await this.pause(backoffDelay(this.retry, failures++, retryAfter), signal);
        continue;
      }
      failures = 0;
      // 204: the wait ran out with nothing new; ask again from the same cursor.
      if (woke === undefined) continue;
      cursor = woke.cursor;
      yield woke;
    }
  }

  /**
   * `GET /events` for ever. After a dropped connection (or a server restart) it reconnects
   * with `Last-Event-ID`, so no event is lost or repeated; `lastEventId` resumes after an
   * event a previous run saw (0: the whole log). Without it the stream starts from now, and
   * until its first event there is no id to resume from: a reconnect then starts from now.
   */
  async *events(
    options: { lastEventId?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ConcordEvent> {
    let lastEventId = options.lastEventId;
    let failures = 0;
    const signal = options.signal;
    while (!signal?.aborted) {
      try {
        const { data: body } = await this.raw.GET("/events", {
          params: { header: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId } },
          headers: { accept: "text/event-stream" },
          parseAs: "stream",
          ...(signal ? { signal } : {}),
        });
        if (body) {
          failures = 0;
          const decoder = new SseDecoder();
          for await (const line of lines(body)) {
            const event = decoder.feed(line);
            if (event === null) continue;
            if (event.id !== null) lastEventId = event.id;
            yield event;
          }
        }
      } catch (e) {
        if (signal?.aborted) return;
        if (e instanceof ConcordError ? !e.retryable : !(e instanceof TypeError)) throw e;
      }
      await this.pause(backoffDelay(this.retry, failures++, null), signal);
    }
  }

  private async pause(seconds: number, signal: AbortSignal | undefined): Promise<void> {
    await this.sleep(seconds, signal).catch(() => undefined);
  }
}
