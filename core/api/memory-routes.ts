/**
 * @module core/api/memory-routes
 * Memory reads a console browses with, beyond facts and a namespace's notes:
 * `GET /v1/api/memory/namespaces` (every namespace holding live facts or notes, with counts)
 * and `GET /v1/api/memory/notes/search` (full-text note search of a namespace, core/memory's
 * `searchNotes`). docs/hosting.md "Domain API" documents both.
 */
import type { z } from "zod";
import { FlowError } from "../errors.js";
import { MEMORY_TABLES, memoryStoreOf, namespaceKey, parseNamespace } from "../memory/index.js";
import type { RouteHandler } from "./api-routes.js";
import { API_ROUTES, routeLabel } from "./contract.js";
import { okResponse } from "./envelope.js";
import type { GatewayHost } from "./host.js";
import type { memoryNamespaceInfoSchema } from "./results-data.js";

/**
 * A memory namespace with what it holds (`GET /v1/api/memory/namespaces`).
 * @example
 * const spaces: MemoryNamespaceInfo[] = await data.api.listMemoryNamespaces();
 * spaces.map((s) => `${s.namespace}: ${s.facts} facts, ${s.notes} notes`);
 */
export type MemoryNamespaceInfo = z.infer<typeof memoryNamespaceInfoSchema>;

/** The most notes one search answers. */
const MAX_SEARCH_LIMIT = 100;

/**
 * The handlers of `listMemoryNamespaces` and `searchMemoryNotes` (core/api/contract.ts; api-routes.ts mounts them).
 * @example
 * const { searchMemoryNotes } = memoryRouteHandlers(host);
 */
export function memoryRouteHandlers(host: GatewayHost): { listMemoryNamespaces: RouteHandler; searchMemoryNotes: RouteHandler } {
  const listMemoryNamespaces: RouteHandler = async (c) => {
    const { store, env } = host.db.binding;
    const [facts, notes] = await Promise.all([
      store.query<{ namespace: string; n: number | string }>(
        `SELECT namespace, COUNT(*) AS n FROM ${MEMORY_TABLES.facts} WHERE expires_at_ms IS NULL OR expires_at_ms > ? GROUP BY namespace`,
        [env.clock.now()],
      ),
      store.query<{ namespace: string; n: number | string }>(`SELECT namespace, COUNT(*) AS n FROM ${MEMORY_TABLES.notes} GROUP BY namespace`),
    ]);
    const byName = new Map<string, MemoryNamespaceInfo>();
    const entry = (namespace: string) => byName.get(namespace) ?? byName.set(namespace, { namespace, facts: 0, notes: 0 }).get(namespace)!;
    for (const r of facts) entry(r.namespace).facts = Number(r.n);
    for (const r of notes) entry(r.namespace).notes = Number(r.n);
    return okResponse([...byName.values()].sort((a, b) => a.namespace.localeCompare(b.namespace)));
  };

  const searchMemoryNotes: RouteHandler = async (c) => {
    const namespace = c.req.query("namespace");
    const q = c.req.query("q") ?? "";
    if (!namespace || !q.trim()) throw new FlowError("INVALID_ARGUMENT", `${routeLabel(API_ROUTES.searchMemoryNotes)} needs ?namespace=<kind>:<id>&q=<words> (for example namespace=workflow:review&q=refund).`, { namespace, q });
    const limitText = c.req.query("limit");
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
      throw new FlowError("INVALID_ARGUMENT", `The query parameter limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}, not "${limitText}".`, { limit: limitText });
    }
    const { store, env } = host.db.binding;
    const memory = memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() });
    const key = namespaceKey(namespace);
    return okResponse(await memory.searchNotes(parseNamespace(key).kind, q, limit, { namespace: key }));
  };
  return { listMemoryNamespaces, searchMemoryNotes };
}
