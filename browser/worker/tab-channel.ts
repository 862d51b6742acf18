/**
 * @module browser/worker/tab-channel
 * How the engine workers of several tabs share one engine: a follower's worker sends a page's
 * request to the leader's over a BroadcastChannel, and the leader answers with the response
 * head, then the body chunk by chunk (so the change stream and run-event SSE stream), then its
 * end. A follower that stops reading (the page closed a stream) says `cancel`. When a new leader
 * announces itself, requests it never answered are sent again (same id: the leader answers an
 * id once) and streams of the old one end with an error, so their readers reconnect.
 * See docs/app-browser.md "Tabs".
 */
import { fromWireRequest, type WireHead, type WireRequest, wireHeadOf } from "../wire.js";

/** What a leader says about itself. */
export interface LeaderInfo {
  leaderId: string;
  storage: string;
}

type Message =
  | { t: "req"; id: string; req: WireRequest }
  | { t: "head"; id: string; head: WireHead }
  | { t: "chunk"; id: string; bytes: Uint8Array }
  | { t: "end"; id: string }
  | { t: "fail"; id: string; message: string }
  | { t: "cancel"; id: string }
  | { t: "who" }
  | ({ t: "leader" } & LeaderInfo);

/** A forwarded request waiting for (or reading) its answer. */
interface Pending {
  req: WireRequest;
  resolve(answer: { head: WireHead; body: ReadableStream<Uint8Array> }): void;
  reject(error: Error): void;
  stream?: ReadableStreamDefaultController<Uint8Array>;
}

/** Ids of answered requests a leader remembers (a request sent again is not run twice). */
const ANSWERED_KEPT = 2000;

/**
 * One worker's end of the tabs' channel.
 * @example
 * const channel = new TabChannel("flow:flow:engine", crypto.randomUUID());
 * const { head, body } = await channel.forward(await toWireRequest(req)); // as a follower
 */
export class TabChannel {
  private readonly bc: BroadcastChannel;
  private readonly pending = new Map<string, Pending>();
  private readonly serving = new Map<string, AbortController>();
  private readonly answered = new Set<string>();
  private route: ((req: Request) => Promise<Response>) | undefined;
  private me: LeaderInfo | undefined;
  private seq = 0;
  /** The leader as last announced (undefined until one answers). */
  leader: LeaderInfo | undefined;
  /** Called when another worker announces itself leader. */
  onLeader: ((info: LeaderInfo) => void) | undefined;

  constructor(name: string, private readonly selfId: string) {
    this.bc = new BroadcastChannel(name);
    this.bc.onmessage = (e: MessageEvent<Message>) => this.receive(e.data);
    this.post({ t: "who" });
  }

  /** Sends a page's request to the leader; resolves with the head and a streaming body. */
  forward(req: WireRequest): Promise<{ head: WireHead; body: ReadableStream<Uint8Array> }> {
    const id = `${this.selfId}:${++this.seq}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { req, resolve, reject });
      this.post({ t: "req", id, req });
    });
  }

  /**
   * This worker leads from now on: it answers requests with `route`, answers its own unanswered
   * forwarded ones the same way, and tells the other workers.
   */
  lead(info: LeaderInfo, route: (req: Request) => Promise<Response>): void {
    this.me = info;
    this.leader = info;
    this.route = route;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (p.stream) p.stream.error(new Error("The engine moved to this tab; reconnect."));
      else void this.answerLocally(p, route);
    }
    this.post({ t: "leader", ...info });
  }

  /** Stops listening (the worker is closing). */
  close(): void {
    for (const ac of this.serving.values()) ac.abort();
    this.bc.close();
  }

  private async answerLocally(p: Pending, route: (req: Request) => Promise<Response>): Promise<void> {
    try {
      const res = await route(fromWireRequest(p.req));
      p.resolve({ head: wireHeadOf(res), body: res.body ?? new ReadableStream({ start: (c) => c.close() }) });
    } catch (error) {
      p.reject(error as Error);
    }
  }

  private post(message: Message): void {
    this.bc.postMessage(message);
  }

  private receive(m: Message): void {
    switch (m.t) {
      case "req":
        if (this.route) void this.serve(m.id, m.req, this.route);
        return;
      case "cancel":
        this.serving.get(m.id)?.abort();
        return;
      case "who":
        if (this.me) this.post({ t: "leader", ...this.me });
        return;
      case "leader":
        this.leader = { leaderId: m.leaderId, storage: m.storage };
        this.resend();
        this.onLeader?.(this.leader);
        return;
      default:
        this.answer(m);
    }
  }

  /** A new leader: requests nobody answered go again; streams of the old leader end. */
  private resend(): void {
    for (const [id, p] of this.pending) {
      if (!p.stream) this.post({ t: "req", id, req: p.req });
      else {
        this.pending.delete(id);
        p.stream.error(new Error("The tab that ran the engine closed; reconnect."));
      }
    }
  }

  private answer(m: Extract<Message, { t: "head" | "chunk" | "end" | "fail" }>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.t === "head") {
      if (p.stream) return;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => void (p.stream = controller),
        cancel: () => {
          this.pending.delete(m.id);
          this.post({ t: "cancel", id: m.id });
        },
      });
      p.resolve({ head: m.head, body });
    } else if (m.t === "chunk") p.stream?.enqueue(m.bytes);
    else {
      this.pending.delete(m.id);
      if (m.t === "end") p.stream?.close();
      else if (p.stream) p.stream.error(new Error(m.message));
      else p.reject(new Error(m.message));
    }
  }

  /** Answers one forwarded request (once per id), streaming its body. */
  private async serve(id: string, wire: WireRequest, route: (req: Request) => Promise<Response>): Promise<void> {
    if (this.serving.has(id) || this.answered.has(id)) return;
    const ac = new AbortController();
    this.serving.set(id, ac);
    this.answered.add(id);
    if (this.answered.size > ANSWERED_KEPT) this.answered.delete(this.answered.values().next().value!);
    try {
      const res = await route(fromWireRequest(wire, ac.signal));
      this.post({ t: "head", id, head: wireHeadOf(res) });
      const reader = res.body?.getReader();
      if (reader) {
        ac.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
        for (let r = await reader.read(); !r.done; r = await reader.read()) this.post({ t: "chunk", id, bytes: r.value });
      }
      if (!ac.signal.aborted) this.post({ t: "end", id });
    } catch (error) {
      if (!ac.signal.aborted) this.post({ t: "fail", id, message: (error as Error).message });
    } finally {
      this.serving.delete(id);
    }
  }
}
