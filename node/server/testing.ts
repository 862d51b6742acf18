/**
 * @module node/server/testing
 * Test helpers of the hosting surfaces: a fetch handler on a real loopback port, closed when
 * the test finishes, and a reader of server-sent events over real `fetch`. Test-only.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { onTestFinished } from "vitest";

/** Serves `fetch` on 127.0.0.1 at a free port until the test finishes. */
export async function listenForTest(fetch: (req: Request) => Promise<Response>): Promise<{ url: string }> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** One parsed server-sent event. */
export interface ReadEvent {
  event: string;
  id?: string;
  data: unknown;
}

/**
 * Reads server-sent events from a response until `until` says stop (or the stream ends),
 * then cancels the body.
 */
export async function readSse(res: Response, until: (events: ReadEvent[]) => boolean): Promise<ReadEvent[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: ReadEvent[] = [];
  let buffer = "";
  try {
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const e: Partial<ReadEvent> & { event: string } = { event: "message" };
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) e.event = line.slice(7);
          else if (line.startsWith("id: ")) e.id = line.slice(4);
          else if (line.startsWith("data: ")) e.data = JSON.parse(line.slice(6));
        }
        if (block.split("\n").some((l) => l.startsWith("data: "))) events.push(e as ReadEvent);
        if (until(events)) break;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return events;
}
