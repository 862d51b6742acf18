/**
 * @module core/api/sse
 * Server-sent events as a web-standard `Response` (a ReadableStream), so the same code streams
 * from Node, a Web Worker or a service worker. A `heartbeat` event keeps idle connections
 * alive; the stream's cleanup runs when the client goes away or the server closes it.
 */
import type { ClockPort } from "../engine/index.js";

/** One server-sent event. */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** Writes to an SSE response. */
export interface SseWriter {
  send(event: SseEvent): void;
  /** Ends the response (cleanup runs). */
  close(): void;
}

/**
 * An SSE response. `start` writes the backlog and returns its cleanup.
 * @example
 * return sseResponse(async (out) => {
 *   out.send({ event: "change", id: "1", data: { collection: "runs" } });
 *   return () => {};
 * }, { clock: systemClock, heartbeatMs: 15000 });
 */
export function sseResponse(start: (writer: SseWriter) => Promise<() => void>, opts: { clock: ClockPort; heartbeatMs: number }): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let cleanup: (() => void) | undefined;
  let heartbeat: unknown;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const finish = () => {
    if (closed) return;
    closed = true;
    if (heartbeat !== undefined) opts.clock.clearTimeout(heartbeat);
    cleanup?.();
  };
  const writer: SseWriter = {
    send(e) {
      if (closed) return;
      const lines = [`event: ${e.event}`, ...(e.id !== undefined ? [`id: ${e.id}`] : []), `data: ${JSON.stringify(e.data)}`];
      controller.enqueue(encoder.encode(`${lines.join("\n")}\n\n`));
    },
    close() {
      if (closed) return;
      finish();
      controller.close();
    },
  };
  const beat = () => {
    writer.send({ event: "heartbeat", data: { atMs: opts.clock.now() } });
    if (!closed) heartbeat = opts.clock.setTimeout(beat, opts.heartbeatMs);
  };
  const body = new ReadableStream<Uint8Array>({
    async start(c) {
      controller = c;
      controller.enqueue(encoder.encode(": flow\n\n"));
      try {
        const stop = await start(writer);
        if (closed) stop();
        else cleanup = stop;
      } catch (error) {
        writer.send({ event: "error", data: { message: (error as Error).message } });
        writer.close();
        return;
      }
      if (!closed) heartbeat = opts.clock.setTimeout(beat, opts.heartbeatMs);
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" } });
}
