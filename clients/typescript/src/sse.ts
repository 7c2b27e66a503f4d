/** `GET /events` as Server-Sent Events: the lines of the stream, decoded into events. */

import type { components } from "./schema.js";

export type EventData = components["schemas"]["EventData"];

/** One event: `id` is what `Last-Event-ID` resumes after, `type` the SSE `event:` name
 * (`conflict.created`, `conflict.resolved`, `sweep.done`, …), `data` its payload. */
export interface ConcordEvent {
  id: number | null;
  type: string;
  data: EventData;
}

/** Feeds lines (without their line break) and returns an event at each blank line that ends
 * one, following the WHATWG event-stream rules concord's stream needs. */
export class SseDecoder {
  private type = "";
  private id: string | null = null;
  private data: string[] = [];

  feed(line: string): ConcordEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    return null;
  }

  private dispatch(): ConcordEvent | null {
    const data = this.data.join("\n");
    const type = this.type;
    this.data = [];
    this.type = "";
    if (!data) return null;
    const payload = JSON.parse(data) as EventData;
    const id = this.id !== null && /^\d+$/.test(this.id) ? Number(this.id) : null;
    return { id, type: type || payload.type, data: payload };
  }
}

/** The lines of a byte stream, split on CRLF, LF or CR. */
export async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone CR at the end may be the first half of a CRLF still in flight.
        if (match === null || (match[0] === "\r" && match.index === buffer.length - 1)) break;
        yield buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
