/**
 * @module node/create-external-flow
 * `createExternalFlow`: a workflow from a non-JSX build function, on SQLite.
 */
import { externalBuild, type ExternalConfig } from "../core/api/index.js";
import type { FlowApi } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import { bindingOf } from "../core/engine/index.js";
import type { FlowWorkflow } from "../core/engine/index.js";
import { createFlow, type SqliteFlowDb } from "./create-flow.js";
import type { SqliteStore } from "./store/index.js";

/** What `createExternalFlow` returns: the workflow, its tables, and `cleanup()` closing the store. */
export type ExternalFlow<S extends SchemaMap> = FlowWorkflow<S> & { tables: FlowApi<S, SqliteFlowDb>["tables"]; cleanup(): void };

/**
 * @example
 * const wf = createExternalFlow({ schemas, agents: { writer }, buildFn: (ctx) => ({ kind: "element", tag: "flow:workflow", props: { name: "x" }, children: [...] }) });
 * await runWorkflow(wf, { input: {} });
 * wf.cleanup();
 */
export function createExternalFlow<S extends SchemaMap>(config: ExternalConfig<S>): ExternalFlow<S> {
  const api = createFlow(config.schemas, config.dbPath ? { dbPath: config.dbPath } : {});
  const workflow = api.flow(externalBuild(config));
  const store = bindingOf(workflow).store as SqliteStore;
  return Object.assign(workflow, {
    tables: api.tables,
    cleanup: () => {
      if (store.raw.open) store.raw.close();
    },
  });
}
