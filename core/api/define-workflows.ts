/**
 * @module core/api/define-workflows
 * `defineWorkflows`: workflows written once for every place that runs them. A workflow file
 * made with `createFlow` is bound to its store when it is imported (a SQLite file in Node); the
 * app runs the same workflows in a browser worker over PGlite and in a Gateway over SQLite, so
 * its workflow files describe the schemas and a build function, and each host binds them to
 * its own store (`bindWorkflows` in Node, the engine worker in the browser). See docs/app.md.
 */
import type { SchemaMap } from "../components/index.js";
import type { FlowWorkflow } from "../engine/index.js";
import type { CreateFlowOptions, FlowApi } from "./create-api.js";

/** Workflows not yet bound to a store. */
export interface WorkflowSet<S extends SchemaMap = SchemaMap, W extends Record<string, FlowWorkflow> = Record<string, FlowWorkflow>> {
  readonly schemas: S;
  /** Options of the factory (`readableName`, `tablePrefix`, ...; `dbPath`/`backend` are the host's). */
  readonly options: CreateFlowOptions;
  /** Builds the workflows, by key, from an api bound to a store. */
  build(api: FlowApi<S>): W;
}

/**
 * Describes workflows for hosts to bind to their own store.
 * @example
 * export default defineWorkflows({ input: z.object({ name: z.string() }), greeting: z.object({ text: z.string() }) }, ({ flow, Workflow, Task, outputs }) => ({
 *   greet: flow((ctx) => <Workflow name="greet"><Task id="hi" output={outputs.greeting}>{() => ({ text: `Hi ${ctx.input.name}` })}</Task></Workflow>),
 * }));
 */
export function defineWorkflows<S extends SchemaMap, W extends Record<string, FlowWorkflow>>(schemas: S, build: (api: FlowApi<S>) => W, options: CreateFlowOptions = {}): WorkflowSet<S, W> {
  return { schemas, options, build };
}
