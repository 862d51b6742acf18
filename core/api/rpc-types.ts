/**
 * @module core/api/rpc-types
 * The shape of an RPC method (scope, zod params, handler) and of what a streaming method
 * (`streamRunEvents`, `streamDevTools`) answers: an `RpcStream` the transport opens with a
 * sink. Over HTTP the handler writes its frames as server-sent events; over WebSocket the
 * Gateway writes them as event frames (`run.event`, ...).
 */
import { z } from "zod";
import { FlowError } from "../errors.js";
import type { GatewayHost, Unsubscribe } from "./host.js";
import type { CallerIdentity } from "./identity.js";
import type { Scope } from "./scopes.js";

/** One RPC method. */
export interface RpcMethod<P = any, R = unknown> {
  scope: Scope;
  params: z.ZodType<P>;
  /**
   * What it answers, as a schema (core/api/results.ts), for the methods the contract declares
   * a result for; `R` is derived from it there. Never applied to an answer: the contract test
   * checks real answers against it.
   */
  result?: z.ZodType<R>;
  handler(params: P, caller: CallerIdentity | null, host: GatewayHost): Promise<R>;
}

/** One frame of a stream: `event` names it (`run.event`, `devtools.frame`), `seq` orders run events. */
export interface RpcStreamFrame {
  event: string;
  seq?: number;
  payload: unknown;
}

/** Where a stream writes. `end` is called once, after the last frame (e.g. the run finished). */
export interface RpcStreamSink {
  next(frame: RpcStreamFrame): void;
  end(): void;
}

const STREAM = Symbol.for("durable-flow.rpc-stream");

/** The result of a streaming method. */
export interface RpcStream {
  readonly [STREAM]: true;
  /** The method, for logs. */
  readonly method: string;
  /** Starts the stream; resolves once its backlog was written, with the function that stops it. */
  open(sink: RpcStreamSink): Promise<Unsubscribe>;
}

/**
 * Makes an RpcStream.
 * @example
 * return rpcStream("streamRunEvents", async (sink) => host.subscribeRunEvents(runId, 0, (e) => sink.next({ event: "run.event", seq: e.seq, payload: e })));
 */
export function rpcStream(method: string, open: (sink: RpcStreamSink) => Promise<Unsubscribe>): RpcStream {
  return { [STREAM]: true, method, open };
}

/**
 * True for the result of a streaming method.
 * @example
 * const result = await api.invoke("streamRunEvents", { runId }, caller);
 * if (isRpcStream(result)) await result.open({ next: (f) => send(f), end: () => close() });
 */
export function isRpcStream(value: unknown): value is RpcStream {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[STREAM] === true;
}

/**
 * A method this build answers with NOT_AVAILABLE (501), saying why and what to use instead.
 * @example
 * const hijackRun = notAvailableMethod("hijackRun", "run:admin", "it arrives with issue #16.");
 */
export function notAvailableMethod(method: string, scope: Scope, why: string): RpcMethod<Record<string, unknown>, never> {
  return {
    scope,
    params: z.record(z.string(), z.unknown()),
    async handler() {
      throw new FlowError("NOT_AVAILABLE", `${method} is not available in this build: ${why}`, { method });
    },
  };
}
