/**
 * @module core/client/rpc-map
 * The params and result type of every RPC method, derived from the gateway's own method
 * definitions (core/api/rpc-*.ts), so the client's typed methods cannot drift from the server.
 * Types only: nothing of the server is bundled into the client.
 */
import type { RpcMethod, RpcMethodName } from "../api/index.js";
import type { CRON_METHODS, HUMAN_METHODS, READ_METHODS, RUN_METHODS, STREAM_METHODS } from "../api/internal.js";
import type { FlowWorkflow, InputOf } from "../engine/index.js";

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
 * The workflows a client knows, by key (`typeof` the map a gateway registers). The default,
 * any key to any workflow, leaves `launchRun` untyped beyond the gateway's own params.
 * @example
 * const workflows = { review: reviewWorkflow, deploy: deployWorkflow };
 * new GatewayClient<typeof workflows>();
 */
export type GatewayWorkflows = Record<string, FlowWorkflow<any>>;

/**
 * The input of a workflow, from its input schema (`Record<string, any>` without one).
 * @example
 * const input: WorkflowInputOf<typeof review> = { repo: "." };
 */
export type WorkflowInputOf<F> = F extends FlowWorkflow<infer S> ? InputOf<S> : Record<string, unknown>;

/** `launchRun`'s params for the workflow `K` of `W`: its key and its input (optional when every field is). */
type LaunchParamsOf<W extends GatewayWorkflows, K extends keyof W & string> = Omit<RpcParams<"launchRun">, "workflow" | "input"> & { workflow: K } & ({} extends WorkflowInputOf<W[K]> ? { input?: WorkflowInputOf<W[K]> } : { input: WorkflowInputOf<W[K]> });

/** True when `W` is the default map (no workflow named). */
type Untyped<W> = string extends keyof W ? true : false;

/**
 * One typed method per unary RPC method (`client.launchRun(params)`, `client.listRuns()`...).
 * With the workflows named (`W`), `launchRun` takes one of their keys and its input type.
 * @example
 * const { runId } = await client.launchRun({ workflow: "review", input: {} });
 */
export type GatewayRpcMethods<W extends GatewayWorkflows = GatewayWorkflows> = {
  [M in UnaryRpcMethodName]: M extends "launchRun"
    ? Untyped<W> extends true
      ? (params: RpcParams<M>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>
      : <K extends keyof W & string>(params: LaunchParamsOf<W, K>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>
    : {} extends RpcParams<M>
      ? (params?: RpcParams<M>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>
      : (params: RpcParams<M>, options?: { signal?: AbortSignal }) => Promise<RpcResult<M>>;
};
