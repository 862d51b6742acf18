export { Branch, Loop, Parallel, Ralph, Sequence, Workflow } from "./control-flow.js";
export { Task } from "./task.js";
export type {
  BranchProps,
  CachePolicy,
  CommonTaskProps,
  DepsOf,
  DepsSpec,
  LoopProps,
  OutputKey,
  OutputTarget,
  ParallelProps,
  RetryPolicy,
  RowInput,
  RowKey,
  RowOf,
  SchemaMap,
  SchemaOf,
  SequenceProps,
  TaskChildren,
  TaskProps,
  TaskRuntime,
  WorkflowProps,
} from "./types.js";
