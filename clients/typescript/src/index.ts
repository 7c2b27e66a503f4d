export {
  Concord,
  ok,
  paginate,
  type ConcordOptions,
  type ConflictDto,
  type ConflictHitDto,
  type CallerResponse,
  type CreateNodeRequest,
  type NodeDto,
  type NodeRestatedResponse,
  type NodeState,
  type NodeWriteResponse,
  type PatchNodeRequest,
  type Recall,
  type Resolution,
  type ResolveResponse,
  type RevertResponse,
  type WakeResponse,
} from "./client.js";
export * from "./errors.js";
export { SseDecoder, type ConcordEvent, type EventData } from "./sse.js";
export {
  DEFAULT_RETRY,
  NO_RETRY,
  type FetchLike,
  type Retry,
  type RetryOptions,
  type Sleep,
} from "./transport.js";
export type { components, paths, operations } from "./schema.js";
