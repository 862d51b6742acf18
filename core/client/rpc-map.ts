/**
 * @module core/client/rpc-map
 * The params and result type of every RPC method, derived from the gateway's own method
 * definitions (core/api/rpc-*.ts), so the client's typed methods cannot drift from the server.
 * Types only: nothing of the server is bundled into the client.
 */
import type {
  CRON_METHODS,
  HUMAN_METHODS,
  READ_METHODS,
  RpcMethod,
  RpcMethodName,
  RUN_METHODS,
  STREAM_METHODS,
} from "../api/index.js";

type Definitions = typeof RUN_METHODS & typeof HUMAN_METHODS & typeof READ_METHODS & typeof CRON_METHODS & typeof STREAM_METHODS;

/**
 * Params fields the server fills with a default (zod `.default`): optional for callers.
 * The client tests call each of these methods without the field.
 */
interface Defaulted {
  launchRun: "input" | "options";
  rewindRun: "resume";
  submitSignal: "kind";
  cronCreate: "input" | "enabled";
  streamRunEvents: "afterSeq";
}

type Parsed<M extends RpcMethodName> = Definitions[M] extends RpcMethod<infer P, any> ? P : never;

/**
 * The params a caller passes to the RPC method `M`.
 * @example
 * const params: RpcParams<"launchRun"> = { workflow: "review", input: { repo: "." } };
 */
export type RpcParams<M extends RpcMethodName> = M extends keyof Defaulted ? Omit<Parsed<M>, Defaulted[M]> & Partial<Pick<Parsed<M>, Extract<Defaulted[M], keyof Parsed<M>>>> : Parsed<M>;

/**
 * What the RPC method `M` answers.
 * @example
 * const page: RpcResult<"listRuns"> = await client.listRuns({ limit: 20 }); // { runs, nextCursor }
 */
export type RpcResult<M extends RpcMethodName> = Definitions[M] extends RpcMethod<any, infer R> ? R : never;

/**
 * The RPC methods answered with one result (every method but the streams).
 * @example
 * const method: UnaryRpcMethodName = "getRun";
 */
export type UnaryRpcMethodName = Exclude<RpcMethodName, "streamRunEvents" | "streamDevTools">;

/**
 * One typed method per unary RPC method (`client.launchRun(params)`, `client.listRuns()`...).
 * @example
 * const { runId } = await client.launchRun({ workflow: "review", input: {} });
 */
export type GatewayRpcMethods = {
  [M in UnaryRpcMethodName]: {} extends RpcParams<M>
    ? (params?: RpcParams<M>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>
    : (params: RpcParams<M>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>;
};
