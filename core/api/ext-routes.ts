/**
 * @module core/api/ext-routes
 * The extension routes of the domain API (docs/hosting.md "Extensions"): extension methods
 * `ext.<namespace>.<key>` over `POST /v1/rpc/<method>` (the same route as every RPC method) and
 * extension streams as server-sent events over `GET /v1/ext/<namespace>/<key>/stream?params=<json>`
 * (`data` per item, then `end`, or `error`). The Gateway supplies the extensions
 * (node/server/extensions.ts); a domain handler without them answers METHOD_NOT_FOUND.
 */
import type { Hono } from "hono";
import type { ClockPort } from "../engine/index.js";
import { FlowError, httpStatusOf } from "../errors.js";
import { PATHS } from "./contract.js";
import type { GatewayHost } from "./host.js";
import type { CallerIdentity, DomainEnv } from "./identity.js";
import { sseResponse } from "./sse.js";

/** The prefix of extension method names. */
export const EXTENSION_PREFIX = "ext.";

/**
 * What an extension is called with besides its params.
 * @example
 * const ctx: ExtensionCallContext = { caller: null, signal: new AbortController().signal, host };
 */
export interface ExtensionCallContext {
  caller: CallerIdentity | null;
  signal: AbortSignal;
  host: GatewayHost;
}

/**
 * The extensions a domain handler answers (the Gateway's ExtensionRegistry).
 * @example
 * createDomainHandler({ host, extensions: registry });
 */
export interface DomainExtensions {
  call(method: string, params: unknown, ctx: ExtensionCallContext): Promise<unknown>;
  stream(method: string, params: unknown, ctx: ExtensionCallContext): AsyncIterable<unknown>;
}

/**
 * Mounts `GET /v1/ext/<namespace>/<key>/stream`.
 * @example
 * mountExtensionStreams(app, { host, extensions, clock: () => systemClock, heartbeatMs: 15000 });
 */
export function mountExtensionStreams(app: Hono<DomainEnv>, deps: { host: GatewayHost; extensions: DomainExtensions | undefined; clock(): ClockPort; heartbeatMs: number }): void {
  app.get(PATHS.extStream, (c) => {
    const method = `${EXTENSION_PREFIX}${c.req.param("namespace")}.${c.req.param("key")}`;
    if (!deps.extensions) throw new FlowError("METHOD_NOT_FOUND", `${method} is not served here: extensions belong to a Gateway (gateway.extend).`, { method });
    const raw = c.req.query("params");
    let params: unknown = {};
    try {
      params = raw === undefined ? {} : JSON.parse(raw);
    } catch {
      throw new FlowError("INVALID_ARGUMENT", `The params query of ${method} is not JSON.`, { method });
    }
    const controller = new AbortController();
    const iterable = deps.extensions.stream(method, params, { caller: c.get("caller"), signal: controller.signal, host: deps.host });
    return sseResponse(
      async (out) => {
        void (async () => {
          try {
            for await (const item of iterable) {
              if (controller.signal.aborted) return;
              out.send({ event: "data", data: item });
            }
            out.send({ event: "end", data: {} });
          } catch (error) {
            const e = FlowError.from(error);
            out.send({ event: "error", data: { code: e.code, message: e.message, status: httpStatusOf(e.code) } });
          }
          out.close();
        })();
        return () => controller.abort();
      },
      { clock: deps.clock(), heartbeatMs: deps.heartbeatMs },
    );
  });
}
