/**
 * @module sync/shape-collection
 * One collection over an Electric shape served by a team Gateway's proxy
 * (`<electricBaseUrl>/<workspace>/<shape>`, docs/multiplayer.md), with
 * `@tanstack/electric-db-collection`: eager sync, rows mapped to the data layer's row types,
 * `awaitTxId` for write confirmation, and `must-refetch` handled by the collection (it
 * truncates and reapplies the shape in one sync transaction, keeping optimistic state).
 *
 * `ShapeHealth` tracks whether the shapes are reachable: every shape request goes through its
 * `fetch`, a network failure or a 5xx marks the workspace offline, any other answer online
 * again. Requests are retried with a short backoff (250 ms doubling to 5 s) so a member who
 * comes back catches up within seconds.
 */
import { createCollection } from "@tanstack/db";
import { electricCollectionOptions } from "@tanstack/electric-db-collection";
import type { LastSeenStore, LiveCollection } from "../core/data/index.js";
import { persistShape } from "./shape-cache.js";
import { SHAPE_PARSER, type ShapeRow } from "./shape-rows.js";

/**
 * Whether a workspace's shapes are reachable, from the answers of their requests.
 * @example
 * const health = new ShapeHealth(fetch);
 * if (health.offline) console.log(health.lastError);
 */
export class ShapeHealth {
  /** True after a shape request failed (network, 5xx) until one succeeds. */
  offline = false;
  lastError: unknown;
  private readonly listeners = new Set<(offline: boolean) => void>();

  constructor(private readonly baseFetch: typeof fetch) {}

  /** The `fetch` shape streams use. */
  readonly fetch: typeof fetch = async (input, init) => {
    try {
      const res = await this.baseFetch(input, init);
      this.set(res.status >= 500, res.status >= 500 ? new Error(`HTTP ${res.status}`) : undefined);
      return res;
    } catch (error) {
      if (!init?.signal?.aborted) this.set(true, error);
      throw error;
    }
  };

  /** The Gateway refused a shape (401, 403, 404): the stream stops; `lastError` says why. */
  refuse(error: unknown): void {
    this.refused = error;
  }

  /** The refusal of a shape, if the Gateway refused one. */
  refused: unknown;

  onChange(listener: (offline: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private set(offline: boolean, error: unknown): void {
    this.lastError = error;
    if (offline === this.offline) return;
    this.offline = offline;
    for (const l of this.listeners) l(offline);
  }
}

/**
 * What a shape collection is built from.
 * @example
 * const spec: ShapeCollectionSpec<GatewayApprovalRow> = { id: "flow:acme:approvals", url, headers: {}, health, toRow: approvalFromShape, getKey: (a) => a.key };
 */
export interface ShapeCollectionSpec<T extends object> {
  id: string;
  /** The proxy URL of the shape: `<electricBaseUrl>/<workspace>/<shape>`. */
  url: string;
  /** Sent with every shape request (the Gateway's `authorization`). */
  headers: Record<string, string>;
  health: ShapeHealth;
  /** Maps a (possibly partial) shape row to a (possibly partial) row of the collection. */
  toRow(row: ShapeRow): Partial<T>;
  getKey(row: T): string;
  /** Awaited before the shape's first request (what `toRow` reads besides the row, e.g. the workspace's workflows). */
  before?: () => Promise<unknown>;
  /** Keeps the shape's rows and resume point in the browser (sync/shape-cache.ts): the collection opens offline. */
  cache?: LastSeenStore;
}

/**
 * The utils of a shape collection: Electric's `awaitTxId` besides the data layer's.
 * @example
 * await cols.runs.utils.awaitTxId?.(txid, 5000);
 */
export interface ShapeCollectionUtils {
  awaitTxId(txid: number, timeoutMs?: number): Promise<boolean>;
}

/** `fetch` whose requests wait for `before()` (called once, on the first request). */
function fetchAfter(before: () => Promise<unknown>, fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  let ready: Promise<unknown> | undefined;
  return async (input, init) => {
    ready ??= before();
    await ready;
    return fetch(input, init);
  };
}

/**
 * Builds a collection over one shape of a team workspace.
 * @example
 * const runs = shapeCollection<GatewayRunSummaryRow>({ id, url: `${base}/acme/runs`, headers, health, toRow: runFromShape, getKey: (r) => r.runId });
 */
export function shapeCollection<T extends object>(spec: ShapeCollectionSpec<T>): LiveCollection<T> {
  const electric = electricCollectionOptions<ShapeRow>({
    id: spec.id,
    syncMode: "eager",
    getKey: (row) => spec.getKey(row as T),
    shapeOptions: {
      url: spec.url,
      headers: spec.headers,
      parser: SHAPE_PARSER,
      transformer: (row) => spec.toRow(row) as ShapeRow,
      fetchClient: spec.before ? fetchAfter(spec.before, spec.health.fetch) : spec.health.fetch,
      backoffOptions: { initialDelay: 250, maxDelay: 5000, multiplier: 2 },
      // Keep retrying through an outage (the health says offline meanwhile); a refusal
      // (not a member, unknown shape) stops the stream and shows as the collection's error.
      onError: (error) => {
        const status = (error as { status?: number }).status;
        if (status !== undefined && status >= 400 && status < 500) return void spec.health.refuse(error);
        return {};
      },
    },
  });
  const options = spec.cache ? persistShape(electric, spec.cache, `${spec.id}:shape`, (row) => spec.getKey(row as T)) : electric;
  const electricUtils = options.utils;
  const utils = {
    awaitTxId: (txid: number, timeoutMs?: number) => electricUtils.awaitTxId(txid, timeoutMs),
    awaitMatch: electricUtils.awaitMatch,
    // Electric is the source of truth: a refetch waits for the shape to be current, and the
    // change stream's row writes (core/data/live-sync.ts) are not needed.
    refetch: () => collection.toArrayWhenReady(),
    writeUpsert: () => {},
    writeDelete: () => {},
    get lastError() {
      return spec.health.refused ?? (spec.health.offline ? spec.health.lastError : undefined);
    },
    get isError() {
      return spec.health.refused !== undefined || spec.health.offline;
    },
  };
  const collection = createCollection({ ...options, utils } as never) as unknown as LiveCollection<T>;
  return collection;
}
