/**
 * @module sync/sync-proxy
 * The Gateway as Electric's authorizing proxy (shared/SYNC.md §1, docs/multiplayer.md
 * "The shape proxy"): `GET|POST /sync/<workspace>/<shape>`.
 *
 * 1. The caller is authenticated with the Gateway's auth mode and must be a member of the
 *    workspace the Gateway serves (any role reads).
 * 2. The shape is one of the workspace's named shapes (sync/team-shapes.ts); the proxy sets
 *    `table`, `where = workspace_id = $1 [AND filter]`, `params[1]`, `columns` and Electric's
 *    `secret` itself. A request that tries to set any of them is refused, not silently fixed:
 *    a client asking for another table or where has a bug or is probing.
 * 3. Only Electric's protocol parameters (`ELECTRIC_PROTOCOL_QUERY_PARAMS`: offset, handle,
 *    live, cursor, subsets, ...) are forwarded; subsets can only narrow (Electric ANDs them).
 * 4. Electric's answer is streamed back unbuffered (long-polls and SSE pass through) with its
 *    `electric-*` headers, minus `content-encoding`/`content-length` (fetch already decoded the
 *    body), plus `vary: authorization, cookie` so no cache hands one member's answer to a
 *    non-member, and the expose-headers a cross-origin client needs.
 */
import type { CallerIdentity } from "../core/api/index.js";
import { requireScope } from "../core/api/wire/index.js";
import { FlowError } from "../core/errors.js";
import { lazyPackage } from "../core/util/index.js";
import { isTeamShape, shapeWhere, TEAM_SHAPES } from "./team-shapes.js";
import { NOT_A_MEMBER } from "./membership.js";

/**
 * What the proxy needs to know about the workspace it serves.
 * @example
 * const ctx: SyncProxyContext = { workspaceId: "acme", schema: "public", electricUrl: "http://electric:3000", fetch };
 */
export interface SyncProxyContext {
  workspaceId: string;
  /** The PostgreSQL schema of the workspace's tables. */
  schema: string;
  electricUrl: string;
  electricSecret?: string;
  fetch: typeof fetch;
}

/** The path prefix of the proxy. */
export const SYNC_PREFIX = "/sync/";

/** Parameters that define a shape: only the proxy sets them. */
const SHAPE_DEFINING = new Set(["table", "where", "columns", "replica", "secret", "api_secret", "source_id", "queryable_columns"]);
// The Electric client loads at the first shape request (docs/package.md "What loads when").
const electric = lazyPackage<typeof import("@electric-sql/client")>(import.meta, "@electric-sql/client", () => import("@electric-sql/client"));
let forwarded: Set<string> | undefined;
const forwardedParams = () => (forwarded ??= new Set(electric().ELECTRIC_PROTOCOL_QUERY_PARAMS));
const DROPPED_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);
const EXPOSED = "electric-cursor, electric-handle, electric-has-data, electric-offset, electric-schema, electric-up-to-date, electric-internal-known-error, electric-snapshot, retry-after, etag";

const quoteIdent = (s: string) => (/^[a-z_][a-z0-9_]*$/.test(s) ? s : `"${s.replace(/"/g, '""')}"`);

/**
 * The Electric URL of a shape request, built from the caller's protocol parameters and the
 * workspace's shape definition; throws on a parameter that would change the shape.
 * @example
 * upstreamUrl(ctx, "runs", new URLSearchParams("offset=-1")).searchParams.get("where"); // "workspace_id = $1"
 */
export function upstreamUrl(ctx: SyncProxyContext, shapeName: string, incoming: URLSearchParams): URL {
  if (!isTeamShape(shapeName)) {
    throw new FlowError("ROUTE_NOT_FOUND", `Workspace "${ctx.workspaceId}" has no shape "${shapeName}"; its shapes are ${Object.keys(TEAM_SHAPES).join(", ")}.`, { workspaceId: ctx.workspaceId, shape: shapeName });
  }
  const shape = TEAM_SHAPES[shapeName];
  const url = new URL("/v1/shape", ctx.electricUrl);
  for (const [key, value] of incoming) {
    if (SHAPE_DEFINING.has(key) || /^params(\[|$)/.test(key)) {
      throw new FlowError("SHAPE_PARAM_FORBIDDEN", `The Gateway defines the shape "${shapeName}" of workspace "${ctx.workspaceId}"; remove "${key}" from the request (only Electric's protocol parameters are accepted).`, {
        workspaceId: ctx.workspaceId,
        shape: shapeName,
        param: key,
      });
    }
    if (forwardedParams().has(key)) url.searchParams.append(key, value);
  }
  url.searchParams.set("table", `${quoteIdent(ctx.schema)}.${quoteIdent(shape.table)}`);
  url.searchParams.set("where", shapeWhere(shape));
  url.searchParams.set("params[1]", ctx.workspaceId);
  url.searchParams.set("columns", shape.columns.map(quoteIdent).join(","));
  if (ctx.electricSecret !== undefined) url.searchParams.set("secret", ctx.electricSecret);
  return url;
}

/**
 * Answers `GET|POST /sync/<workspace>/<shape>` for an authenticated caller.
 * @example
 * const res = await answerSync(ctx, req, await authenticate(req));
 */
export async function answerSync(ctx: SyncProxyContext, req: Request, caller: CallerIdentity | null): Promise<Response> {
  if (req.method !== "GET" && req.method !== "POST") throw new FlowError("ROUTE_NOT_FOUND", `${req.method} is not served on ${SYNC_PREFIX}; shapes are read with GET (or POST for subsets).`);
  const incoming = new URL(req.url);
  const [workspaceId, shapeName, ...rest] = incoming.pathname.slice(SYNC_PREFIX.length).split("/").map(decodeURIComponent);
  if (!workspaceId || !shapeName || rest.length > 0) throw new FlowError("ROUTE_NOT_FOUND", `Shapes are served at ${SYNC_PREFIX}<workspace>/<shape>; got ${incoming.pathname}.`);
  if (workspaceId !== ctx.workspaceId) {
    throw new FlowError("WORKSPACE_NOT_FOUND", `This Gateway serves workspace "${ctx.workspaceId}", not "${workspaceId}"; ask the Gateway of that workspace.`, { workspaceId });
  }
  if (caller?.role === NOT_A_MEMBER) {
    throw new FlowError("WORKSPACE_NOT_MEMBER", `${caller.userId} is not a member of workspace "${ctx.workspaceId}"; an admin of the workspace can add them (ext.workspace.addMember).`, { workspaceId, userId: caller.userId });
  }
  requireScope(caller, "run:read", `${SYNC_PREFIX}${workspaceId}/${shapeName}`);
  const url = upstreamUrl(ctx, shapeName, incoming.searchParams);
  let upstream: Response;
  try {
    upstream = await ctx.fetch(url, {
      method: req.method,
      signal: req.signal,
      ...(req.method === "POST" ? { body: await req.text(), headers: { "content-type": "application/json" } } : {}),
    });
  } catch (cause) {
    if (req.signal.aborted) throw cause;
    throw new FlowError("SYNC_UPSTREAM_UNAVAILABLE", `Electric at ${new URL(ctx.electricUrl).origin} did not answer the shape "${shapeName}" of workspace "${workspaceId}": ${(cause as Error).message}. Check team.electricUrl and that Electric is running.`, {
      workspaceId,
      shape: shapeName,
    });
  }
  const headers = new Headers();
  upstream.headers.forEach((value, key) => {
    if (!DROPPED_HEADERS.has(key)) headers.set(key, value);
  });
  headers.set("vary", "authorization, cookie");
  headers.set("access-control-expose-headers", EXPOSED);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
}
