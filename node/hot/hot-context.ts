/**
 * @module node/hot/hot-context
 * Why reloaded builds can use the running run's schema objects (docs/hot-reload.md).
 *
 * A reloaded bundle re-runs the workflow file's top level, so `createFlow({ step: z.object(...) })`
 * would make new zod objects and open a second store. The engine's schema registry resolves
 * `output={outputs.step}` by object identity, so the new build's objects would not be found
 * ("not an output of this workflow"). Instead, the bundle's `durable-flow` import is a shim
 * whose `createFlow` / `createFlowPostgres` / `openFlowBackend` ask the hot context registered
 * here: when the new schemas are the ones the run started with (same keys, same columns, same
 * JSON Schema), it returns an api over the running workflow's own binding, so `outputs.step`
 * is the original object and no store is opened. Changed schemas fail the reload
 * (HOT_RELOAD_FAILED): a running run keeps the tables it started with.
 */
import { z } from "zod";
import { createFlowApi, type CreateFlowOptions } from "../../core/api/index.js";
import { bindingOf, type StoreBinding } from "../../core/engine/index.js";
import type { FlowWorkflow } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import type { AnyObjectSchema } from "../../core/schema/index.js";
import { SchemaRegistry, type TableEntry } from "../../core/schema/index.js";

/** The global key of the token -> context map the bundle's shim reads. */
export const HOT_CONTEXTS_KEY = "durable-flow.hot-reload";

type Factory = "createFlow" | "createFlowPostgres" | "openFlowBackend";

/** What the shim of one watched workflow file calls. */
export interface HotContext {
  reuse(factory: Factory, schemas: unknown, opts: unknown, real: () => unknown): unknown;
}

function contexts(): Map<string, HotContext> {
  const g = globalThis as Record<symbol, Map<string, HotContext> | undefined>;
  const key = Symbol.for(HOT_CONTEXTS_KEY);
  return (g[key] ??= new Map());
}

/**
 * Registers the context of `token`: factories called by reloaded bundles reuse `baseline`'s
 * binding (or, without a baseline, open their store as usual). Returns the unregister function.
 */
export function registerHotContext(token: string, workflowPath: string, baseline: FlowWorkflow | undefined): () => void {
  const binding = baseline ? bindingOf(baseline) : undefined;
  const context: HotContext = {
    reuse(factory, schemas, opts, real) {
      if (!baseline || !binding) return real();
      assertSameSchemas(binding.registry, (schemas ?? {}) as Record<string, AnyObjectSchema>, workflowPath);
      const api = createFlowApi(binding, baseline.db as object, (opts ?? {}) as CreateFlowOptions);
      if (factory === "createFlow") return api;
      // The async factories' extras: `close` must not close the running run's store.
      return Object.assign(api, { backend: backendOf(binding), close: async () => {} });
    },
  };
  contexts().set(token, context);
  return () => void contexts().delete(token);
}

/** Throws HOT_RELOAD_FAILED naming each schema key added, removed or changed. */
export function assertSameSchemas(running: SchemaRegistry, schemas: Record<string, AnyObjectSchema>, workflowPath: string): void {
  const fresh = new SchemaRegistry(schemas, running.dialect, running.options);
  const changes: string[] = [];
  for (const [key, entry] of fresh.entries) {
    const old = running.entries.get(key);
    if (!old) changes.push(`${key} added`);
    else if (describe(old) !== describe(entry)) changes.push(`${key} changed`);
  }
  for (const key of running.entries.keys()) if (!fresh.entries.has(key)) changes.push(`${key} removed`);
  if (changes.length > 0) {
    throw new FlowError(
      "HOT_RELOAD_FAILED",
      `Hot reload of ${workflowPath}: its schemas changed (${changes.join(", ")}). A running run keeps the tables and schemas it started with; start a new run to use the new ones. The previous build keeps running.`,
      { workflowPath, changes },
    );
  }
}

/** Columns plus JSON Schema: what a stored row and an agent's output instructions depend on. */
function describe(entry: TableEntry): string {
  let json: unknown;
  try {
    json = z.toJSONSchema(entry.schema as z.ZodType, { unrepresentable: "any" });
  } catch {
    json = null;
  }
  return JSON.stringify([entry.tableName, entry.columns, json]);
}

function backendOf(binding: StoreBinding): string {
  if (binding.store.dialect === "sqlite") return "sqlite";
  return "pool" in binding.store ? "postgres" : "pglite";
}
