import { afterEach, describe, expect, it } from "vitest";
import { toWireRequest } from "../wire.js";
import { TabChannel } from "./tab-channel.js";

// The protocol between tabs' engine workers, over Node's BroadcastChannel (the same API).
let open: TabChannel[] = [];
const channel = (name: string, id: string) => {
  const c = new TabChannel(name, id);
  open.push(c);
  return c;
};
afterEach(() => {
  for (const c of open) c.close();
  open = [];
});
const wire = (path: string, init?: RequestInit) => toWireRequest(new Request(`http://flow.worker${path}`, init));
const text = (body: ReadableStream<Uint8Array>) => new Response(body).text();

describe("TabChannel", () => {
  it("forwards a follower's request to the leader and streams the answer back, cancel included", async () => {
    const name = `t-${crypto.randomUUID()}`;
    let cancelled!: () => void;
    const streamCancelled = new Promise<void>((r) => (cancelled = r));
    const seen: string[] = [];
    channel(name, "L").lead({ leaderId: "L", storage: "opfs" }, async (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname} ${req.method === "POST" ? await req.text() : ""}`.trim());
      if (new URL(req.url).pathname === "/stream") {
        return new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("event: a\n\n")), c.enqueue(new TextEncoder().encode("event: b\n\n"))), cancel: () => cancelled() }), { headers: { "content-type": "text/event-stream" } });
      }
      return Response.json({ ok: true }, { status: 201, headers: { "x-flow": "1" } });
    });
    const follower = channel(name, "F");

    const { head, body } = await follower.forward(await wire("/v1/api/runs", { method: "POST", body: '{"workflow":"hello"}' }));
    expect(head.status).toBe(201);
    expect(new Headers(head.headers).get("x-flow")).toBe("1");
    expect(await text(body)).toBe('{"ok":true}');
    expect(seen).toEqual(['POST /v1/api/runs {"workflow":"hello"}']);
    expect(follower.leader).toEqual({ leaderId: "L", storage: "opfs" });

    const stream = await follower.forward(await wire("/stream"));
    const reader = stream.body.pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>).getReader();
    let got = "";
    while (!got.includes("event: b")) got += (await reader.read()).value;
    await reader.cancel();
    await streamCancelled; // the leader stopped producing once the follower's reader went away
  });

  it("sends a request nobody answered to the next leader, which runs each request id once", async () => {
    const name = `t-${crypto.randomUUID()}`;
    const follower = channel(name, "F");
    const pending = follower.forward(await wire("/health"));
    await new Promise((r) => setTimeout(r, 50)); // no leader yet: nobody answers
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const route = async () => {
      calls++;
      await gate;
      return new Response("fine");
    };
    const next = channel(name, "N");
    next.lead({ leaderId: "N", storage: "idb" }, route);
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    // Announced again while the request is still being answered: the follower sends it again,
    // and the leader does not run it a second time.
    next.lead({ leaderId: "N", storage: "idb" }, route);
    await new Promise((r) => setTimeout(r, 50));
    release();
    const { body } = await pending;
    expect(await text(body)).toBe("fine");
    expect(calls).toBe(1);
  });

  it("ends the old leader's streams with an error when a new leader announces itself", async () => {
    const name = `t-${crypto.randomUUID()}`;
    channel(name, "L").lead({ leaderId: "L", storage: "opfs" }, async () => new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("x")) })));
    const follower = channel(name, "F");
    const { body } = await follower.forward(await wire("/v1/api/stream"));
    const reader = body.getReader();
    expect((await reader.read()).done).toBe(false);
    channel(name, "N").lead({ leaderId: "N", storage: "opfs" }, async () => new Response("new"));
    await expect(reader.read()).rejects.toThrow(/closed; reconnect/);
    expect(follower.leader?.leaderId).toBe("N");
  });
});
