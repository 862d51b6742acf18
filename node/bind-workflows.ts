/**
 * @module node/bind-workflows
 * Binds a `defineWorkflows` set (core/api/define-workflows.ts) to a SQLite store in Node, as
 * `createFlow` would: what `npm start`'s Gateway does with the app's workflows.
 */
import type { WorkflowSet } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import type { FlowWorkflow } from "../core/engine/index.js";
import { createFlow } from "./create-flow.js";

/**
 * The workflows of a set, over the SQLite file `dbPath` (default `.flow/flow.db`).
 * @example
 * const { hello } = bindWorkflows(demoWorkflows, { dbPath: ".flow/app.db" });
 * await runWorkflow(hello, { input: { name: "Ada" } });
 */
export function bindWorkflows<S extends SchemaMap, W extends Record<string, FlowWorkflow>>(set: WorkflowSet<S, W>, opts: { dbPath?: string } = {}): W {
  return set.build(createFlow(set.schemas, { ...set.options, ...opts }) as never);
}
