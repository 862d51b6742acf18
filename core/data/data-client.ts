/**
 * @module core/data/data-client
 * `createDataClient({ mode, fetch?, EventSource?, headers? })` (SPEC.md "Data layer"): the
 * domain API (`api`) and its change stream (`stream`) of one workspace, through a `fetch` the
 * caller may supply (the browser app passes its worker's). `close()` aborts its own in-flight
 * calls and stops the stream; it never touches what the caller passed in. See docs/client.md.
 */
import type { GatewayBackoffOptions } from "../client/index.js";
import { isGatewayUnavailableError } from "../client/index.js";
import { FlowError } from "../errors.js";
import { ChangeStream, type EventSourceConstructor } from "./change-stream.js";
import { closedError, createDataApi, type DataApi } from "./data-api.js";
import type { WorkspaceMode } from "./mode.js";

/**
 * Options of `createDataClient`.
 * @example
 * createDataClient({ mode: { kind: "local", apiBaseUrl: "http://127.0.0.1:7331" }, fetch: workerFetch, headers: { "x-team": "infra" } });
 */
export interface DataClientOptions {
  mode: WorkspaceMode;
  /** Default: the global `fetch` (the browser app passes its worker's). */
  fetch?: typeof fetch;
  /** Read the change stream with this EventSource; without it, with streaming `fetch`. */
  EventSource?: EventSourceConstructor;
  /** Merged into every `/v1/api/*` request and the change stream (content type and the mode's token win). */
  headers?: Record<string, string>;
  /** Reconnect delays of the change stream (SPEC.md defaults: 250 ms base, 10 s cap, factor 2, jitter 0.5). */
  backoff?: GatewayBackoffOptions;
}

/**
 * A workspace's domain API and change stream.
 * @example
 * const data: DataClient = createDataClient({ mode }); await data.api.listWorkflows(); data.close();
 */
export interface DataClient {
  readonly mode: WorkspaceMode;
  /** Typed `/v1/api/*` calls; GATEWAY_UNAVAILABLE when nothing answers. */
  readonly api: DataApi;
  /** The change stream and the connection status. */
  readonly stream: ChangeStream;
  readonly closed: boolean;
  /** Stops the stream and aborts in-flight calls (they throw GATEWAY_CLIENT_CLOSED); idempotent. */
  close(): void;
}

/**
 * Creates a data client.
 * @example
 * import { createDataClient } from "durable-flow/data";
 * const data = createDataClient({ mode: { kind: "local", apiBaseUrl: "http://127.0.0.1:7331" } });
 * data.stream.onStatus((s) => console.log("gateway", s));
 * const { runs } = await data.api.listRuns({ limit: 20 });
 * data.close();
 */
export function createDataClient(options: DataClientOptions): DataClient {
  const { mode } = options;
  if (!mode || (mode.kind !== "local" && mode.kind !== "multiplayer") || typeof mode.apiBaseUrl !== "string") {
    throw new FlowError("INVALID_ARGUMENT", 'createDataClient needs mode { kind: "local" | "multiplayer", apiBaseUrl, token? }.', { mode });
  }
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const own = new AbortController();
  const stream = new ChangeStream({ mode, fetch: fetchImpl, ...(options.EventSource ? { EventSource: options.EventSource } : {}), ...(options.headers ? { headers: options.headers } : {}), ...(options.backoff ? { backoff: options.backoff } : {}) });
  const raw = createDataApi({ mode, fetch: fetchImpl, ...(options.headers ? { headers: options.headers } : {}), signal: own.signal });
  // Every call: refused after close, and a call that finds no gateway tells the stream (badge, notice).
  const api = Object.fromEntries(
    Object.entries(raw).map(([name, fn]) => [
      name,
      async (...args: unknown[]) => {
        if (own.signal.aborted) throw closedError(name);
        try {
          return await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          if (isGatewayUnavailableError(error)) stream.reportUnavailable();
          throw error;
        }
      },
    ]),
  ) as unknown as DataApi;
  return {
    mode,
    api,
    stream,
    get closed() {
      return own.signal.aborted;
    },
    close() {
      if (own.signal.aborted) return;
      own.abort();
      stream.close();
    },
  };
}
