/**
 * @module core/api/rpc-streams
 * Streaming RPC methods. `streamRunEvents` ({runId, afterSeq?}) sends `run.event` frames (the
 * FlowEvent, with its `seq`) from the durable log after `afterSeq`, then live, and ends after
 * the run's terminal event. `streamDevTools` ({runId}) sends `devtools.frame` frames: the
 * run's current graph snapshot, then each newly committed frame.
 */
import { z } from "zod";
import type { RunStatus } from "../engine/index.js";
import { TERMINAL_EVENT_TYPES } from "./host.js";
import { type RpcMethod, type RpcStream, rpcStream } from "./rpc-types.js";

const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set(["finished", "failed", "cancelled", "continued"]);

const streamRunEventsParams = z.object({ runId: z.string().min(1), afterSeq: z.number().int().min(0).default(0) });

export const STREAM_METHODS = {
  streamRunEvents: {
    scope: "run:read",
    params: streamRunEventsParams,
    async handler(p, _c, host) {
      await host.db.requireRun(p.runId);
      return rpcStream("streamRunEvents", async (sink) => {
        let stop: (() => void) | undefined;
        let ended = false;
        stop = await host.subscribeRunEvents(p.runId, p.afterSeq, (event) => {
          if (ended) return;
          sink.next({ event: "run.event", seq: event.seq!, payload: event });
          if (TERMINAL_EVENT_TYPES.has(event.type)) {
            ended = true;
            stop?.();
            sink.end();
          }
        });
        if (ended) stop();
        else if (!host.activeRun(p.runId) && ENDED_STATUSES.has((await host.db.requireRun(p.runId)).status)) {
          // Resumed after the terminal event (e.g. Last-Event-ID = the last seq): nothing more comes.
          ended = true;
          stop();
          sink.end();
        }
        return () => stop?.();
      });
    },
  } as RpcMethod<z.infer<typeof streamRunEventsParams>, RpcStream>,
  streamDevTools: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1) }),
    async handler(p, _c, host) {
      await host.db.requireRun(p.runId);
      return rpcStream("streamDevTools", async (sink) => {
        let sent = 0;
        let chain = Promise.resolve();
        const sendLatest = () =>
          (chain = chain.then(async () => {
            const frame = await host.db.getFrame(p.runId);
            if (frame && frame.frameNo > sent) {
              sent = frame.frameNo;
              sink.next({ event: "devtools.frame", seq: frame.frameNo, payload: frame });
            }
          }));
        await sendLatest();
        const lastSeq = (await host.db.listEvents(p.runId)).at(-1)?.seq ?? 0;
        return host.subscribeRunEvents(p.runId, lastSeq, (event) => {
          if (event.type === "FrameCommitted") void sendLatest();
        });
      });
    },
  } as RpcMethod<{ runId: string }, RpcStream>,
} satisfies Record<string, RpcMethod<any, any>>;
