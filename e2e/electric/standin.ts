/**
 * @module e2e/electric/standin
 * A stand-in for the Electric sync service, for tests only (never shipped): it serves
 * Electric's HTTP shape protocol `GET /v1/shape` (shared/SYNC.md appendix B) from the real
 * PostgreSQL's logical decoding (wal2json), so the Gateway's shape proxy and the data layer's
 * multiplayer mode are tested against `@electric-sql/client` and
 * `@tanstack/electric-db-collection` themselves. The real Electric is an Elixir release that
 * cannot be installed on these machines; docs/multiplayer.md says how production runs it.
 *
 * What it serves: `table` (`name` or `schema.name`), `where` with `params[n]`, `columns`,
 * `replica`, `offset=-1` snapshots (rows, then `snapshot-end` with the Postgres snapshot, no
 * up-to-date), non-live catch-up and live long-polls ending in `up-to-date`, `electric-cursor`
 * that always moves, change messages with `txids`, `lsn`, `op_position` and `last`, 409
 * `must-refetch` with a fresh handle for an unknown or rotated handle, the `secret` check, and
 * the headers the client requires. Not served: SSE, subsets (`subset__*`, POST), `log=changes_only`.
 *
 * Ordering: polls of the slot and shape creations run one at a time, and a shape is registered
 * before its snapshot is read. So a transaction is either decoded after the shape exists (and
 * kept when the snapshot could not see it) or committed before the snapshot began (and in it).
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { formatOffset, type LogOffset, parseOffset, Shape, type ShapeDef, type WireMessage } from "./shape.js";
import { WalReader } from "./wal-reader.js";

/**
 * Options of `startElectricStandin`.
 * @example
 * await startElectricStandin({ connectionString: TEST_POSTGRES_URL, secret: "s3cret", longPollTimeoutMs: 2000 });
 */
export interface StandinOptions {
  /** The database to replicate (the test database). */
  connectionString: string;
  /** Electric's `ELECTRIC_SECRET`: requests must carry it as `secret` (or `api_secret`). */
  secret?: string;
  /** How long a live request waits for a change (Electric's default is 20000 ms). */
  longPollTimeoutMs?: number;
  /** How often the slot is polled (default 20 ms). */
  pollIntervalMs?: number;
}

/**
 * A running stand-in.
 * @example
 * const electric = await startElectricStandin({ connectionString });
 * new ShapeStream({ url: `${electric.url}/v1/shape`, params: { table: "items" } });
 */
export interface ElectricStandin {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request the stand-in answered, as `<status> <path+query>` (what a proxy forwarded). */
  readonly requests: string[];
  /** Expires every shape of `table` (`schema.table`), or all: their handles now answer 409. */
  rotate(table?: string): void;
  close(): Promise<void>;
}

const CURSOR_EPOCH_MS = Date.parse("2024-10-09T00:00:00Z");

/** Electric's live cursor: a time bucket, moved on when it would not differ from the request's. */
function nextCursor(timeoutMs: number, incoming: string | null): string {
  const t = Math.max(1, Math.round(timeoutMs / 1000));
  const bucket = Math.ceil((Date.now() - CURSOR_EPOCH_MS) / 1000 / t) * t;
  const prev = Number(incoming ?? 0);
  return String(bucket > prev ? bucket : prev + 1 + Math.floor(Math.random() * 3600));
}

/** `name`, `schema.name` or quoted parts → [schema, name]. */
function parseTable(s: string): [string, string] | null {
  const parts = [...s.matchAll(/"((?:[^"]|"")+)"|([^."]+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!));
  if (parts.length === 1) return ["public", parts[0]!];
  if (parts.length === 2) return [parts[0]!, parts[1]!];
  return null;
}

class BadRequest extends Error {}

function shapeDefOf(q: URLSearchParams): ShapeDef {
  const table = q.get("table");
  if (!table) throw new BadRequest("table is required");
  const parsed = parseTable(table);
  if (!parsed) throw new BadRequest(`invalid table ${table}`);
  const params: string[] = [];
  const keys = [...q.keys()].filter((k) => /^params\[\d+\]$/.test(k)).map((k) => Number(k.slice(7, -1))).sort((a, b) => a - b);
  keys.forEach((k, i) => {
    if (k !== i + 1) throw new BadRequest("params must be numbered 1..n without gaps");
    params.push(q.get(`params[${k}]`)!);
  });
  const replica = q.get("replica") ?? "default";
  if (replica !== "default" && replica !== "full") throw new BadRequest("replica must be default or full");
  const columns = q.get("columns");
  return { schema: parsed[0], table: parsed[1], where: q.get("where") || null, params, columns: columns ? columns.split(",").map((c) => c.trim().replace(/^"(.*)"$/, "$1")) : null, replica };
}

/**
 * Starts the stand-in on a loopback port.
 * @example
 * const electric = await startElectricStandin({ connectionString: TEST_POSTGRES_URL });
 * try { ... } finally { await electric.close(); }
 */
export async function startElectricStandin(opts: StandinOptions): Promise<ElectricStandin> {
  const timeoutMs = opts.longPollTimeoutMs ?? 20_000;
  const pool = new pg.Pool({ connectionString: opts.connectionString, max: 4 });
  pool.on("error", () => {});
  const reader = await WalReader.open(opts.connectionString);
  const current = new Map<string, Shape>();
  const requests: string[] = [];
  let serial = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let lastLsn = 0n;
  let closed = false;
  /** Runs `fn` after every poll and shape creation queued before it. */
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn);
    chain = run.catch(() => {});
    return run;
  };

  /** One poll of the slot; true when it brought transactions (the next poll then follows at once: writes come in bursts). */
  const pollOnce = async (): Promise<boolean> => {
    const shapes = [...current.values()];
    const txs = await reader.poll(new Set(shapes.map((s) => s.relation)));
    if (txs.length === 0) return false;
    lastLsn = txs.at(-1)!.lsn;
    await Promise.all(shapes.map((shape) => shape.apply(pool, txs)));
    return true;
  };
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (closed) return;
    void serialized(pollOnce).then(
      (busy) => !closed && (timer = setTimeout(loop, busy ? 0 : (opts.pollIntervalMs ?? 20))),
      () => !closed && (timer = setTimeout(loop, opts.pollIntervalMs ?? 20)),
    );
  };
  loop();

  const createShape = (key: string, def: ShapeDef) =>
    serialized(async () => {
      const existing = current.get(key);
      if (existing) return existing;
      const handle = `${createHash("sha1").update(key).digest("hex").slice(0, 12)}-${Date.now() * 1000 + (++serial % 1000)}`;
      const shape = await Shape.create(pool, def, handle);
      current.set(key, shape);
      return shape;
    });

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const upToDate = (): WireMessage => ({ headers: { control: "up-to-date", global_last_seen_lsn: String(lastLsn) } });

  const handle = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => {
    const url = new URL(req.url ?? "/", "http://standin");
    if (url.pathname !== "/v1/shape") return send(res, 404, { message: "Not found" }, { "cache-control": "no-store" });
    if (req.method !== "GET") return send(res, 400, { message: "The stand-in serves GET /v1/shape only (no subsets, no deletes)." }, { "cache-control": "no-store" });
    const q = url.searchParams;
    if (opts.secret !== undefined && (q.get("secret") ?? q.get("api_secret")) !== opts.secret) return send(res, 401, { message: "Unauthorized - Invalid API secret" }, { "cache-control": "no-store" });
    const offsetParam = q.get("offset");
    const live = q.get("live") === "true";
    const def = shapeDefOf(q);
    if (!offsetParam) throw new BadRequest("offset is required");
    const key = JSON.stringify(def);
    const handleParam = q.get("handle");
    if (offsetParam === "-1") {
      const shape = current.get(key) ?? (await createShape(key, def));
      const offset = "0_inf";
      return send(res, 200, shape.snapshot, {
        "electric-handle": shape.handle,
        "electric-offset": offset,
        "electric-schema": shape.schemaHeader,
        "electric-has-data": "true",
        etag: `"${shape.handle}:-1:${offset}"`,
        "cache-control": "public, max-age=604800, s-maxage=3600, stale-while-revalidate=2629746",
      });
    }
    if (!handleParam) throw new BadRequest("handle is required for an offset other than -1");
    const requested = offsetParam === "now" ? null : parseOffset(offsetParam);
    if (offsetParam !== "now" && !requested) throw new BadRequest(`invalid offset ${offsetParam}`);
    const shape = current.get(key);
    const refetch = async () => {
      const fresh = current.get(key) ?? (await createShape(key, def));
      send(res, 409, [{ headers: { control: "must-refetch" } }], { "electric-handle": fresh.handle, "cache-control": "public, max-age=60, must-revalidate" });
    };
    if (!shape || shape.handle !== handleParam) return refetch();
    const lastOf = (s: Shape): LogOffset => s.log.at(-1)?.offset ?? [0n, Number.POSITIVE_INFINITY];
    const from = requested ?? lastOf(shape);
    let entries = shape.entriesAfter(from);
    if (live && entries.length === 0) {
      await shape.waitForChange(timeoutMs, signal);
      if (signal.aborted) return;
      if (shape.gone) return refetch();
      entries = shape.entriesAfter(from);
    }
    const body = [...entries.map((e) => e.message), upToDate()];
    const offset = entries.length > 0 ? formatOffset(entries.at(-1)!.offset) : formatOffset(from);
    const headers: Record<string, string> = {
      "electric-handle": shape.handle,
      "electric-offset": offset,
      "electric-up-to-date": "",
      "electric-has-data": String(entries.length > 0),
      etag: `"${shape.handle}:${offsetParam}:${offset}${entries.length === 0 ? `:${Date.now()}` : ""}"`,
    };
    if (live) {
      headers["electric-cursor"] = nextCursor(timeoutMs, q.get("cursor"));
      headers["cache-control"] = "public, max-age=5, stale-while-revalidate=5";
    } else {
      headers["electric-schema"] = shape.schemaHeader;
      headers["cache-control"] = "public, max-age=60, stale-while-revalidate=300";
    }
    send(res, 200, body, headers);
  };

  const server = createServer((req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    res.on("finish", () => requests.push(`${res.statusCode} ${req.url}`));
    handle(req, res, abort.signal).catch((error: unknown) => {
      if (res.headersSent) return void res.end();
      if (error instanceof BadRequest) return send(res, 400, { message: "Invalid request", errors: { request: [error.message] } }, { "cache-control": "no-store" });
      send(res, 400, { message: "Invalid request", errors: { table: [(error as Error).message] } }, { "cache-control": "no-store" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rotate(table) {
      for (const [key, shape] of current) {
        if (table === undefined || shape.relation === table) {
          current.delete(key);
          shape.expire();
        }
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await chain;
      await reader.close();
      await pool.end();
    },
  };
}
