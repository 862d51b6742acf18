/**
 * @module core/binding
 * What ties a workflow (and its `db` handle) to its store: the store port, the schema registry
 * and the runtime env. Attached under a symbol so the public objects stay plain. An area of its
 * own, below the engine: time travel, task memory and scorers read a binding without importing
 * the engine (docs/architecture.md, "No cycles").
 */
import type { RuntimeEnv } from "./engine/index.js";
import { FlowError } from "./errors.js";
import type { SchemaRegistry } from "./schema/index.js";
import type { StorePort } from "./store/index.js";

export interface StoreBinding {
  store: StorePort;
  registry: SchemaRegistry;
  env: RuntimeEnv;
  /** Runs this process is executing now (never two sessions on one run in one process). */
  activeRuns: Set<string>;
  /** Wakes the session of a run in this process when something is delivered to it. */
  wakers?: Map<string, () => void>;
}

const BINDING = Symbol.for("durable-flow.binding");

/** Attaches a binding to a workflow, api or db object. */
export function attachBinding<T extends object>(target: T, binding: StoreBinding): T {
  Object.defineProperty(target, BINDING, { value: binding, enumerable: false });
  return target;
}

/** The binding of a workflow, api or db object; throws INVALID_ARGUMENT when there is none. */
export function bindingOf(target: unknown, what = "workflow"): StoreBinding {
  const b = typeof target === "object" && target !== null ? (target as Record<symbol, StoreBinding | undefined>)[BINDING] : undefined;
  if (!b) {
    throw new FlowError("INVALID_ARGUMENT", `This ${what} is not bound to a Flow store; create it with createFlow(...).flow(...) (or createFlowPostgres / openFlowBackend).`);
  }
  return b;
}
