/**
 * @module browser/create-browser-flow
 * Binds `defineWorkflows` sets (core/api/define-workflows.ts) to a browser PGlite store, as
 * `bindWorkflows` does to SQLite in Node: Flow's migrations, the user tables of each set, and
 * the api over a Drizzle database of the same PGlite. Every set of one store shares one runtime
 * env, so the engine of a tab has one claim owner id. See docs/app-browser.md.
 */
import { drizzle } from "drizzle-orm/pglite";
import { createFlowApi, type FlowApi } from "../core/api/index.js";
import type { WorkflowSet } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import type { FlowWorkflow } from "../core/engine/index.js";
import { createDefaultEnv, type RuntimeEnv } from "../core/engine/index.js";
import { ensureUserTables, registryOptions, SchemaRegistry } from "../core/schema/index.js";
import { migrateStore } from "../core/store/index.js";
import type { BrowserPgliteStore } from "./store/index.js";
import { TABLES } from "../core/protocol.js";

/** The Drizzle database of a browser flow. */
export type BrowserFlowDb = ReturnType<typeof drizzle>;

/**
 * The runtime env of the engine in this browser. Only the tab holding the engine lock runs an
 * engine (browser/worker/leader.ts), so every claim owner but this one is gone: a run another
 * owner left `running` is taken over at once instead of after the stale-heartbeat delay.
 * @example
 * const env = createBrowserEnv("flow");
 * env.isOwnerAlive?.("browser:flow:old"); // false
 */
export function createBrowserEnv(dbName: string, overrides: Partial<RuntimeEnv> = {}): RuntimeEnv {
  const ownerId = overrides.ownerId ?? `browser:${dbName}:${globalThis.crypto.randomUUID()}`;
  return createDefaultEnv({ ownerId, isOwnerAlive: (owner) => owner === ownerId, ...overrides });
}

/** A workflow set of any schema map (sets are invariant in theirs: `build` takes their api). */
export type AnyWorkflowSet = WorkflowSet<any, Record<string, FlowWorkflow<any>>>;

/** A set bound to a browser store. */
export interface BrowserBinding {
  env: RuntimeEnv;
  /** The workflows of every set, by key. */
  workflows: Record<string, FlowWorkflow>;
}

/**
 * Binds one set to a prepared store (migrated, its user tables made) with a shared env and run
 * registry.
 * @example
 * const { workflows } = createBrowserFlow(helloWorkflows, store, env);
 */
export function createBrowserFlow<S extends SchemaMap, W extends Record<string, FlowWorkflow>>(
  set: WorkflowSet<S, W>,
  store: BrowserPgliteStore,
  env: RuntimeEnv,
  activeRuns: Set<string> = new Set(),
  registry: SchemaRegistry = registryOf(set),
): { api: FlowApi<S, BrowserFlowDb>; workflows: W } {
  const api = createFlowApi<S, BrowserFlowDb>({ store, registry, env, activeRuns }, drizzle({ client: store.pglite }), set.options);
  return { api, workflows: set.build(api) };
}

const registryOf = (set: AnyWorkflowSet) => new SchemaRegistry(set.schemas, "postgres", registryOptions(set.options));

/** The `_flow_meta` key recording which user tables this store was last prepared for. */
const TABLES_KEY = "browser:userTables";

/**
 * Migrates `store`, makes the user tables of every set (skipped when the store was prepared for
 * exactly these tables last time: a reload of the app checks one row instead of every table),
 * and binds every set to it; keys must be unique across sets.
 * @example
 * const store = await openBrowserPgliteStore({ name: "flow" });
 * const { workflows } = await bindBrowserWorkflows(appWorkflows, store, createBrowserEnv("flow"));
 * await runWorkflow(workflows.hello!, { input: { name: "Ada" } });
 */
export async function bindBrowserWorkflows(sets: readonly AnyWorkflowSet[], store: BrowserPgliteStore, env: RuntimeEnv): Promise<BrowserBinding> {
  await migrateStore(store, env.clock.now());
  const registries = sets.map(registryOf);
  const signature = registries.map((r) => r.signature()).join("|");
  const [prepared] = await store.query<{ value: string }>(`SELECT value FROM ${TABLES.meta} WHERE key = ?`, [TABLES_KEY]);
  if (prepared?.value !== signature) {
    for (const registry of registries) await ensureUserTables(store, registry);
    await store.execute(`INSERT INTO ${TABLES.meta} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [TABLES_KEY, signature]);
  }
  const activeRuns = new Set<string>();
  const workflows: Record<string, FlowWorkflow> = {};
  sets.forEach((set, i) => Object.assign(workflows, createBrowserFlow(set, store, env, activeRuns, registries[i]).workflows));
  return { env, workflows };
}
