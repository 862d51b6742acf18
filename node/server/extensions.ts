/**
 * @module node/server/extensions
 * `Gateway.extend(namespace, definition)`: extension RPC methods and streams, reachable as
 * method `ext.<namespace>.<key>` over `POST /v1/rpc/ext.<namespace>.<key>` and WebSocket
 * `req` frames, and streams as SSE (`GET /v1/ext/<namespace>/<key>/stream?params=<json>`) or
 * WebSocket `ext.data` frames. A namespace's methods need its `scope` (default
 * `ext:<namespace>`; `*` grants it). See docs/hosting.md "Extensions".
 */
import type { CallerIdentity, GatewayHost } from "../../core/api/index.js";
import { requireScope } from "../../core/api/index.js";
import { EXTENSION_PREFIX } from "../../core/api/internal.js";
import { FlowError } from "../../core/errors.js";

/**
 * What an extension handler is called with besides its params.
 * @example
 * const whoami = (_params: unknown, ctx: ExtensionContext) => ({ user: ctx.caller?.userId ?? "anonymous" });
 */
export interface ExtensionContext {
  /** The authenticated caller (null when the gateway has no auth). */
  caller: CallerIdentity | null;
  /** Aborted when the caller goes away or the gateway closes. */
  signal: AbortSignal;
  /** The gateway's host: its store, workflows and runs. */
  host: GatewayHost;
}

/**
 * An extension namespace.
 * @example
 * gateway.extend("repo", {
 *   rpc: { status: async (params) => ({ branch: "main" }) },
 *   streams: { ticks: async function* () { for (let i = 0; i < 3; i++) yield { i }; } },
 * });
 */
export interface GatewayExtension {
  /** The scope its methods and streams need (default `ext:<namespace>`). */
  scope?: string;
  rpc?: Record<string, (params: unknown, ctx: ExtensionContext) => unknown>;
  streams?: Record<string, (params: unknown, ctx: ExtensionContext) => AsyncIterable<unknown>>;
}

export { EXTENSION_PREFIX };

/** Extension namespaces of a gateway. */
export class ExtensionRegistry {
  private readonly namespaces = new Map<string, GatewayExtension>();

  add(namespace: string, definition: GatewayExtension): void {
    if (!/^[A-Za-z0-9_-]+$/.test(namespace)) throw new FlowError("INVALID_ARGUMENT", `Extension namespace "${namespace}" must be letters, digits, _ or -.`, { namespace });
    if (this.namespaces.has(namespace)) throw new FlowError("INVALID_ARGUMENT", `Extension namespace "${namespace}" is already registered.`, { namespace });
    this.namespaces.set(namespace, definition);
  }

  /** True for a method name of the form `ext.<namespace>.<key>`. */
  static isExtensionMethod(method: string): boolean {
    return method.startsWith(EXTENSION_PREFIX);
  }

  /** Calls `ext.<ns>.<key>`; throws METHOD_NOT_FOUND or FORBIDDEN. */
  async call(method: string, params: unknown, ctx: ExtensionContext): Promise<unknown> {
    const { fn } = this.find(method, "rpc", ctx.caller);
    return fn(params, ctx);
  }

  /** Opens the stream `ext.<ns>.<key>`; throws METHOD_NOT_FOUND or FORBIDDEN. */
  stream(method: string, params: unknown, ctx: ExtensionContext): AsyncIterable<unknown> {
    return this.find(method, "streams", ctx.caller).fn(params, ctx);
  }

  /** True when `method` names a stream (not an RPC method). */
  isStream(method: string): boolean {
    const [ns, key] = split(method);
    return ns !== undefined && key !== undefined && Object.hasOwn(this.namespaces.get(ns)?.streams ?? {}, key);
  }

  private find<K extends "rpc" | "streams">(method: string, kind: K, caller: CallerIdentity | null): { fn: NonNullable<GatewayExtension[K]>[string] } {
    const [ns, key] = split(method);
    const def = ns === undefined ? undefined : this.namespaces.get(ns);
    const table = (def?.[kind] ?? {}) as Record<string, NonNullable<GatewayExtension[K]>[string]>;
    if (!def || key === undefined || !Object.hasOwn(table, key)) {
      throw new FlowError("METHOD_NOT_FOUND", `No extension ${kind === "rpc" ? "method" : "stream"} ${method}; extensions: ${[...this.namespaces.keys()].join(", ") || "none"}.`, { method });
    }
    requireScope(caller, def.scope ?? `ext:${ns}`, method);
    return { fn: table[key]! };
  }
}

function split(method: string): [string | undefined, string | undefined] {
  if (!method.startsWith(EXTENSION_PREFIX)) return [undefined, undefined];
  const rest = method.slice(EXTENSION_PREFIX.length);
  const dot = rest.indexOf(".");
  return dot <= 0 ? [undefined, undefined] : [rest.slice(0, dot), rest.slice(dot + 1)];
}
