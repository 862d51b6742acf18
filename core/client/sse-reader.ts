/**
 * @module core/client/sse-reader
 * Reads server-sent events from a `fetch` response body (streaming fetch), for runtimes and
 * callers without an `EventSource`: the gateway client's HTTP streams and the data layer's
 * change stream when no EventSource override is given. Follows the WHATWG parsing rules that
 * Flow's servers use: `event:`, `id:`, `data:` lines (joined by newlines), comments skipped,
 * an event dispatched at a blank line.
 */

/** One event read from the stream. `data` is the raw text. */
export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/**
 * The events of an SSE body, in order; ends when the body ends. `onBytes` is called on every
 * chunk (comments and heartbeats included), so callers can watch for a silent connection.
 * @example
 * for await (const m of readSse(res.body!)) if (m.event === "change") console.log(JSON.parse(m.data));
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onBytes?: () => void): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let id: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onBytes?.();
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield { event: event || "message", ...(id !== undefined ? { id } : {}), data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * True when a response is an event stream (`text/event-stream`).
 * @example
 * if (!isEventStream(res)) throw new Error("not an event stream");
 */
export function isEventStream(res: Response): boolean {
  return (res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}
