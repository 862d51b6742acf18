/**
 * @module node/server/ws/run-stream
 * One run subscription of one WebSocket: the run's stored events after `afterSeq`, then live
 * ones, as `run.event` frames carrying the event's `seq` (each once, in order).
 *
 * Replay window: when more than `eventWindowSize` events lie after `afterSeq`, the stream
 * sends `run.gap_resync` first and replays only the newest `eventWindowSize` of them (the
 * client refetches the run's state for what it skipped). Backpressure: a frame is not queued
 * when the socket already holds more than its bound of unsent bytes; the subscription is
 * dropped with `run.error` (SUBSCRIBER_TOO_SLOW) instead, and the client resumes with
 * `afterSeq` from the last `seq` it saw.
 */
import type { GatewayHost, Unsubscribe } from "../../../core/api/index.js";
import type { FlowEvent } from "../../../core/engine/index.js";
import { FlowError } from "../../../core/errors.js";
import type { RunEventName } from "./frames.js";
import { TABLES } from "../../../core/protocol.js";

/** Where a stream writes frames: false when the socket is over its unsent-bytes bound. */
export interface FrameSink {
  /** Sends a serialized text frame; false when it was not sent because the socket is too far behind. */
  sendText(frame: string | Buffer): boolean;
  /** Sends a frame even when behind (errors, gap notices): bounded, one per subscription. */
  sendForced(text: string): void;
}

// One event object reaches every subscriber of its run: its frame is serialized and encoded once.
const eventFrames = new WeakMap<FlowEvent, Buffer>();

function runEventFrame(event: FlowEvent & { seq: number }): Buffer {
  let frame = eventFrames.get(event);
  if (frame === undefined) {
    frame = Buffer.from(frameText("run.event", event.runId, event.seq, event));
    eventFrames.set(event, frame);
  }
  return frame;
}

function frameText(event: RunEventName, runId: string, seq: number, payload: unknown): string {
  return `{"type":"event","event":"${event}","runId":${JSON.stringify(runId)},"seq":${seq},"payload":${JSON.stringify(payload)}}`;
}

/** The highest seq of a run's event log (0 when it has none). */
export async function lastStoredSeq(host: GatewayHost, runId: string): Promise<number> {
  const db = host.activeRun(runId)?.db ?? host.db;
  const [row] = await db.store.query<{ n: unknown }>(`SELECT MAX(seq) AS n FROM ${TABLES.events} WHERE run_id = ?`, [runId]);
  return Number(row?.n ?? 0);
}

export class RunStream {
  /** The seq of the last event sent. */
  lastSeq: number;
  private unsubscribe: Unsubscribe | undefined;
  private dropped = false;

  constructor(
    readonly runId: string,
    private readonly afterSeq: number,
    private readonly sink: FrameSink,
    private readonly onDropped: (stream: RunStream, code: string) => void,
  ) {
    this.lastSeq = afterSeq;
  }

  /**
   * Sends the replay (after a `run.gap_resync` when it is past the window) and goes live.
   * Throws RUN_NOT_FOUND for an unknown run.
   */
  async start(host: GatewayHost, windowSize: number): Promise<{ afterSeq: number; lastSeq: number }> {
    const db = host.activeRun(this.runId)?.db ?? host.db;
    if (!(await db.getRun(this.runId))) throw new FlowError("RUN_NOT_FOUND", `Run ${this.runId} does not exist, so there is nothing to stream.`, { runId: this.runId });
    const stored = await lastStoredSeq(host, this.runId);
    let from = this.afterSeq;
    if (stored - this.afterSeq > windowSize) {
      from = stored - windowSize;
      this.lastSeq = from;
      this.sink.sendForced(frameText("run.gap_resync", this.runId, from, { requestedAfterSeq: this.afterSeq, resumedAfterSeq: from, lastSeq: stored, windowSize }));
    }
    const unsubscribe = await host.subscribeRunEvents(this.runId, from, (e) => this.deliver(e));
    if (this.dropped) unsubscribe();
    else this.unsubscribe = unsubscribe;
    return { afterSeq: from, lastSeq: stored };
  }

  /** A `run.heartbeat` frame with the last seq sent (skipped when the socket is behind). */
  heartbeat(atMs: number): void {
    if (!this.dropped) this.sink.sendText(frameText("run.heartbeat", this.runId, this.lastSeq, { atMs }));
  }

  /** Stops the subscription quietly (unsubscribe, socket closed). */
  stop(): void {
    this.dropped = true;
    this.unsubscribe?.();
  }

  /** Stops the subscription and tells the client why with `run.error`. */
  fail(error: FlowError): void {
    if (this.dropped) return;
    this.stop();
    this.sink.sendForced(frameText("run.error", this.runId, this.lastSeq, { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }));
    this.onDropped(this, error.code);
  }

  private deliver(event: FlowEvent): void {
    if (this.dropped || event.seq === undefined) return;
    if (!this.sink.sendText(runEventFrame(event as FlowEvent & { seq: number }))) {
      this.fail(
        new FlowError("SUBSCRIBER_TOO_SLOW", `This socket fell too far behind the events of run ${this.runId}; the subscription was dropped after seq ${this.lastSeq}. Read faster, then subscribe again with afterSeq ${this.lastSeq}.`, {
          runId: this.runId,
          lastSeq: this.lastSeq,
        }),
      );
      return;
    }
    this.lastSeq = event.seq;
  }
}
