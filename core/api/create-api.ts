/**
 * @module core/api/create-api
 * The api object a factory returns (SPEC.md "Api object members"): the `flow(build, opts)`
 * wrapper, `useCtx`, `outputs`, `tables`, `db` and the components, typed by the schema map.
 * Every factory (createFlow, createFlowPostgres, openFlowBackend) builds it here.
 */
import {
  Approval,
  ApprovalGate,
  Branch,
  continueAsNew,
  ContinueAsNew,
  HumanTask,
  libraryComponents,
  type LibraryComponents,
  Loop,
  MergeQueue,
  Parallel,
  Ralph,
  Saga,
  SagaStep,
  Sandbox,
  Sequence,
  Signal,
  Subflow,
  type SubflowProps,
  Task,
  Timer,
  TryCatchFinally,
  WaitForEvent,
  Workflow,
  Worktree,
} from "../components/index.js";
import type {
  ApprovalGateProps,
  ApprovalProps,
  DepsSpec,
  HumanTaskProps,
  OutputKey,
  OutputTarget,
  SchemaMap,
  TaskProps,
  WaitForEventProps,
} from "../components/index.js";
import { attachBinding, type StoreBinding } from "../engine/index.js";
import { recordDefiningSite } from "../engine/internal.js";
import type { FlowAlertPolicy, FlowCtx, FlowWorkflow, WorkflowOptions } from "../engine/index.js";
import type { FlowElement, FlowNode } from "../jsx/index.js";
import { useRenderCtx } from "../jsx/index.js";
import type { AnyObjectSchema, FlowTable } from "../schema/index.js";

/** SPEC.md `CreateFlowOptions`. */
export interface CreateFlowOptions {
  readableName?: string;
  description?: string;
  alertPolicy?: FlowAlertPolicy;
  /** Default `.flow/flow.db`. */
  dbPath?: string;
  /** Default `WAL`. */
  journalMode?: string;
  /** Default `sqlite`; `createFlow` serves only `sqlite`. */
  backend?: "sqlite" | "pglite" | "postgres";
  /**
   * Flow's addition: a prefix for this schema map's SQL table names, for a workflow that wants
   * tables of its own in a store other workflows share. Default none (docs/store.md, "Many
   * workflows in one store").
   */
  tablePrefix?: string;
}

/** The typed Task component of a schema map. */
export type TypedTask<S extends SchemaMap> = <O extends OutputTarget<S>, D extends DepsSpec<S> = {}>(props: TaskProps<S, O, D>) => FlowElement;

/** The waiting components typed by a schema map. */
export interface TypedWaits<S extends SchemaMap> {
  Approval: <O extends OutputTarget<S>>(props: ApprovalProps<S, O>) => FlowNode;
  ApprovalGate: <O extends OutputTarget<S>>(props: ApprovalGateProps<S, O>) => FlowNode;
  HumanTask: <O extends OutputTarget<S>>(props: HumanTaskProps<S, O>) => FlowNode;
  WaitForEvent: <O extends OutputTarget<S>>(props: WaitForEventProps<S, O>) => FlowNode;
  Signal: typeof Signal;
  Timer: typeof Timer;
  Subflow: <O extends OutputTarget<S>>(props: SubflowProps<S, O>) => FlowNode;
  ContinueAsNew: typeof ContinueAsNew;
  continueAsNew: typeof continueAsNew;
  Saga: typeof Saga;
  SagaStep: typeof SagaStep;
  TryCatchFinally: typeof TryCatchFinally;
  MergeQueue: typeof MergeQueue;
  Worktree: typeof Worktree;
  Sandbox: typeof Sandbox;
}

/** What `createFlow` and the other factories return. */
export interface FlowApi<S extends SchemaMap, Db = unknown> extends TypedWaits<S>, LibraryComponents {
  /** Wraps a build function into a runnable workflow. */
  flow(build: (ctx: FlowCtx<S>) => FlowNode, opts?: WorkflowOptions): FlowWorkflow<S>;
  /** The render context, inside a component. */
  useCtx(): FlowCtx<S>;
  /** The schema objects passed in, by key (use them as Task `output`). */
  outputs: { readonly [K in OutputKey<S>]: S[K] };
  /** One Drizzle table per schema key (including `input`). */
  tables: { readonly [K in keyof S]: FlowTable };
  /** The Drizzle database over the store. */
  db: Db;
  Workflow: typeof Workflow;
  Task: TypedTask<S>;
  Sequence: typeof Sequence;
  Parallel: typeof Parallel;
  Branch: typeof Branch;
  Loop: typeof Loop;
  /** @deprecated Use `Loop`. */
  Ralph: typeof Ralph;
}

/** Builds the api of a bound store. */
export function createFlowApi<S extends SchemaMap, Db extends object>(binding: StoreBinding, db: Db, opts: CreateFlowOptions): FlowApi<S, Db> {
  const { registry } = binding;
  const outputs: Record<string, AnyObjectSchema> = {};
  const tables: Record<string, FlowTable> = {};
  const schemaRegistry: NonNullable<FlowWorkflow["schemaRegistry"]> = {};
  const zodToKeyName = new Map<AnyObjectSchema, string>();
  for (const e of registry.entries.values()) {
    tables[e.key] = e.table;
    schemaRegistry[e.key] = { table: e.table, schema: e.schema };
    zodToKeyName.set(e.schema, e.key);
    if (!e.isInput) outputs[e.key] = e.schema;
  }
  attachBinding(db, binding);
  const api: FlowApi<S, Db> = {
    flow(build, wopts = {}) {
      const workflow: FlowWorkflow<S> = {
        build: build as FlowWorkflow["build"],
        opts: { ...(opts.alertPolicy ? { alertPolicy: opts.alertPolicy } : {}), ...wopts },
        db,
        schemaRegistry,
        zodToKeyName,
      };
      recordDefiningSite(workflow, new Error().stack);
      if (opts.readableName) workflow.readableName = opts.readableName;
      if (opts.description) workflow.description = opts.description;
      return attachBinding(workflow, binding);
    },
    useCtx: () => useRenderCtx<FlowCtx<S>>(),
    outputs: outputs as FlowApi<S>["outputs"],
    tables: tables as FlowApi<S>["tables"],
    db,
    Workflow,
    Task: Task as TypedTask<S>,
    Sequence,
    Parallel,
    Branch,
    Loop,
    Ralph,
    Approval,
    ApprovalGate,
    HumanTask,
    WaitForEvent,
    Signal,
    Timer,
    Subflow: Subflow as TypedWaits<S>["Subflow"],
    ContinueAsNew,
    continueAsNew,
    Saga,
    SagaStep,
    TryCatchFinally,
    MergeQueue,
    Worktree,
    Sandbox,
    ...libraryComponents,
  };
  return attachBinding(api, binding);
}
