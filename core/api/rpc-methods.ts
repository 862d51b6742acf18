/**
 * @module core/api/rpc-methods
 * The registry of every RPC method (SPEC.md "RPC methods by group"): its scope, its params
 * (zod; bad params answer INVALID_ARGUMENT 400) and its handler. The groups live beside this
 * file (rpc-runs, rpc-human, rpc-reads, rpc-cron, rpc-streams). docs/hosting.md lists them.
 */
import { FlowError } from "../errors.js";
import { assertIdLengths } from "./body.js";
import type { GatewayHost } from "./host.js";
import type { CallerIdentity } from "./identity.js";
import { CRON_METHODS } from "./rpc-cron.js";
import { HUMAN_METHODS } from "./rpc-human.js";
import { READ_METHODS } from "./rpc-reads.js";
import { RUN_METHODS } from "./rpc-runs.js";
import { STREAM_METHODS } from "./rpc-streams.js";
import type { RpcMethod } from "./rpc-types.js";
import { checkScope, METHOD_SCOPES, methodNotFound, type RpcMethodName } from "./scopes.js";

/**
 * Every RPC method, by name.
 * @example
 * const { scope, params } = RPC_METHODS.launchRun; // "run:write", the zod schema of its params
 */
export const RPC_METHODS: Readonly<Record<RpcMethodName, RpcMethod>> = { ...RUN_METHODS, ...HUMAN_METHODS, ...READ_METHODS, ...CRON_METHODS, ...STREAM_METHODS };

for (const [name, method] of Object.entries(RPC_METHODS)) {
  if (METHOD_SCOPES[name as RpcMethodName] !== method.scope) throw new Error(`RPC method ${name}: scope table and registry disagree.`);
}

/**
 * Calls an RPC method: checks the caller's scope, validates the params, runs the handler.
 * Throws METHOD_NOT_FOUND, FORBIDDEN, INVALID_ARGUMENT (bad params, an identifier over
 * MAX_ID_LENGTH) or what the handler throws.
 * @example
 * const { runId } = (await invokeRpc(host, "launchRun", { workflow: "review", input: {} }, null)) as { runId: string };
 */
export async function invokeRpc(host: GatewayHost, method: string, params: unknown, caller: CallerIdentity | null): Promise<unknown> {
  if (!Object.hasOwn(RPC_METHODS, method)) throw methodNotFound(method);
  checkScope(caller, method);
  assertIdLengths(params, method);
  const def = RPC_METHODS[method as RpcMethodName];
  const parsed = def.params.safeParse(params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`);
    throw new FlowError("INVALID_ARGUMENT", `Bad params for ${method}: ${issues.join("; ")}.`, { method, issues });
  }
  return def.handler(parsed.data, caller, host);
}
