/**
 * @module browser/wire
 * Requests and response heads as plain structured-cloneable messages, so a page can send a
 * domain API request to its engine worker (comlink) and a follower tab's worker can send it on
 * to the leader's (BroadcastChannel). Bodies of requests are small JSON and travel whole;
 * response bodies stream (browser/worker/tab-channel.ts, browser/client.ts).
 */

/** A request as a message. */
export interface WireRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: ArrayBuffer | null;
}

/** The head of a response as a message. */
export interface WireHead {
  status: number;
  statusText: string;
  headers: [string, string][];
}

/**
 * A request as a message (its body read whole).
 * @example
 * const wire = await toWireRequest(new Request("http://flow.worker/health"));
 */
export async function toWireRequest(req: Request): Promise<WireRequest> {
  const body = req.method === "GET" || req.method === "HEAD" ? null : await req.arrayBuffer();
  return { url: req.url, method: req.method, headers: [...req.headers], body: body && body.byteLength > 0 ? body : null };
}

/**
 * The request a message describes; `signal` aborts it (an SSE stream's consumer went away).
 * @example
 * const req = fromWireRequest(wire, controller.signal);
 */
export function fromWireRequest(wire: WireRequest, signal?: AbortSignal): Request {
  return new Request(wire.url, { method: wire.method, headers: wire.headers, body: wire.body, ...(signal ? { signal } : {}) });
}

/**
 * The head of a response as a message.
 * @example
 * const head = wireHeadOf(await handler.fetch(req));
 */
export function wireHeadOf(res: Response): WireHead {
  return { status: res.status, statusText: res.statusText, headers: [...res.headers] };
}

/**
 * A response from a head and a body stream.
 * @example
 * const res = responseOf(head, body);
 */
export function responseOf(head: WireHead, body: ReadableStream<Uint8Array> | null): Response {
  const empty = head.status === 204 || head.status === 304 || head.status < 200;
  return new Response(empty ? null : body, { status: head.status, statusText: head.statusText, headers: head.headers });
}
