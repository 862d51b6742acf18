/**
 * @module core/components/types
 * Prop types of the components, typed by the workflow's schema map so that `output`, rows and
 * deps are checked at compile time.
 */
import type { z } from "zod";
import type { AgentLike } from "../agents/index.js";
import type { FlowNode } from "../jsx/index.js";
import type { TaskMemoryConfig } from "../memory/index.js";
import type { AnyObjectSchema, FlowTable } from "../schema/index.js";
import type { ScorersMap } from "../scorers/index.js";

/** A workflow's schema map: name to z.object(...). The key `input` types the run input. */
export type SchemaMap = Record<string, AnyObjectSchema>;

/** Keys of the output tables (every key but `input`). */
export type OutputKey<S extends SchemaMap> = Exclude<keyof S & string, "input">;

/** SPEC.md `OutputTarget`: an output schema (recommended), a table object, or a schema key. */
export type OutputTarget<S extends SchemaMap = SchemaMap> = S[OutputKey<S>] | OutputKey<S> | FlowTable;

/** The key columns of every output row. */
export interface RowKey {
  runId: string;
  nodeId: string;
  iteration: number;
}

/** The schema an output target designates. */
export type SchemaOf<S extends SchemaMap, O> = O extends AnyObjectSchema ? O : O extends keyof S ? S[O] : AnyObjectSchema;

/** A stored output row of a target: the schema's output plus its key columns. */
export type RowOf<S extends SchemaMap, O> = z.output<SchemaOf<S, O>> & RowKey;

/** What a task may produce for a target (validated against the schema). */
export type RowInput<S extends SchemaMap, O> = z.input<SchemaOf<S, O>>;

/** SPEC.md `DepsSpec`: dependency name to output target. */
export type DepsSpec<S extends SchemaMap = SchemaMap> = Record<string, OutputTarget<S>>;

/** The resolved deps a deps-aware Task child receives. */
export type DepsOf<S extends SchemaMap, D> = { [K in keyof D]: RowOf<S, D[K]> };

/** SPEC.md `RetryPolicy`. */
export interface RetryPolicy {
  /** Default `fixed`. */
  backoff?: "fixed" | "linear" | "exponential";
  /** Default 0. */
  initialDelayMs?: number;
}

/** SPEC.md `CachePolicy`. */
export interface CachePolicy {
  /** Value mixed into the cache key, computed from the render context. */
  by?: (ctx: any) => unknown;
  /** Bump to invalidate earlier entries. */
  version?: string;
  /** Explicit key mixed into the cache key. */
  key?: string;
  /** Entries older than this are ignored. */
  ttlMs?: number;
  /** Where an entry is visible: this run (default), every run of this workflow, or everywhere. */
  scope?: "run" | "workflow" | "global";
  [extra: string]: unknown;
}

/** What a compute child receives while its attempt runs. */
export interface TaskRuntime {
  runId: string;
  nodeId: string;
  iteration: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborted on timeout, cancellation or when the task leaves the tree. */
  signal: AbortSignal;
  /** The directory the task works in: its Worktree or Sandbox, else the run's rootDir (always set by the engine). */
  rootDir?: string;
  /** Reports liveness (resets `heartbeatTimeoutMs`); `data` is recorded with the attempt. */
  heartbeat(data?: unknown): void;
}

/**
 * The children a Task accepts: a prompt (string or JSX, with `agent`), a static row, or a
 * function run when the task starts. With `deps`, the function receives the dependencies'
 * rows first. A function's result is the row, or the prompt when the task has an agent.
 */
export type TaskChildren<S extends SchemaMap, O, D> =
  | string
  | FlowNode
  | RowInput<S, O>
  | ([keyof D] extends [never]
      ? (task: TaskRuntime) => RowInput<S, O> | FlowNode | Promise<RowInput<S, O> | string>
      : (deps: DepsOf<S, D>, task: TaskRuntime) => RowInput<S, O> | FlowNode | Promise<RowInput<S, O> | string>);

/** Props shared by every task-like component. */
export interface CommonTaskProps {
  id: string;
  key?: string | number;
  dependsOn?: string[];
  needs?: Record<string, string>;
  skipIf?: boolean;
  timeoutMs?: number;
  heartbeatTimeoutMs?: number;
  /** Alias of `heartbeatTimeoutMs`. */
  heartbeatTimeout?: number;
  /** Default Infinity (unbounded); 0 disables. */
  retries?: number;
  retryPolicy?: RetryPolicy;
  continueOnFail?: boolean;
  cache?: boolean | CachePolicy;
  label?: string;
  meta?: Record<string, unknown>;
}

/** SPEC.md `Task` props. */
export interface TaskProps<S extends SchemaMap, O extends OutputTarget<S>, D extends DepsSpec<S> = {}> extends CommonTaskProps {
  output: O;
  outputSchema?: AnyObjectSchema;
  /** One agent, or a failover chain tried in order. */
  agent?: AgentLike | AgentLike[];
  fallbackAgent?: AgentLike;
  deps?: D;
  /** Start from another task's final agent session. */
  fork?: string;
  needsApproval?: boolean;
  async?: boolean;
  /** Equivalent to `retries={0}`. */
  noRetry?: boolean;
  /** Graders of every successful attempt, recorded as live scores (docs/scorers.md). */
  scorers?: ScorersMap;
  /** Memory the agent gets and keeps (docs/memory.md). */
  memory?: TaskMemoryConfig;
  /** `false` refuses `flow hijack` of this task (default: a person may take over its CLI agent's session). */
  hijack?: boolean;
  /** After a hijack: `complete` (default) continues the session for the task's row; `reopen` leaves the task pending. */
  onHijackExit?: "complete" | "reopen";
  allowTools?: string[];
  children: TaskChildren<S, NoInfer<O>, NoInfer<D>>;
}

export interface WorkflowProps {
  name: string;
  /** Cache every task of the workflow unless a task says otherwise. */
  cache?: boolean;
  children?: FlowNode;
}

export interface SequenceProps {
  key?: string | number;
  skipIf?: boolean;
  children?: FlowNode;
}

export interface ParallelProps {
  id?: string;
  maxConcurrency?: number;
  subtreeConcurrency?: number;
  skipIf?: boolean;
  children?: FlowNode;
}

export interface BranchProps {
  if: boolean;
  then: FlowNode;
  else?: FlowNode;
  skipIf?: boolean;
}

export interface LoopProps {
  key?: string | number;
  id?: string;
  /** Stop when true (evaluated at each render). */
  until?: boolean;
  /** Default 5. */
  maxIterations?: number;
  /** Default `return-last`. */
  onMaxReached?: "fail" | "return-last";
  continueAsNewEvery?: number;
  skipIf?: boolean;
  children?: FlowNode;
}
