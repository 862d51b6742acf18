/**
 * @module core/protocol
 * Names that cross a boundary (host tags in frames, internal tables): one module, so that a
 * rename is one edit and a stray literal is easy to find.
 */

/** Host element tags of the built-in components. */
export const TAGS = {
  workflow: "flow:workflow",
  task: "flow:task",
  sequence: "flow:sequence",
  parallel: "flow:parallel",
  branch: "flow:branch",
  loop: "flow:loop",
  approval: "flow:approval",
  human: "flow:human-task",
  signal: "flow:signal",
  event: "flow:wait-for-event",
  timer: "flow:timer",
  saga: "flow:saga",
  sagaStep: "flow:saga-step",
  try: "flow:try",
  fail: "flow:fail",
  continueAsNew: "flow:continue-as-new",
  subflow: "flow:subflow",
  mergeQueue: "flow:merge-queue",
  worktree: "flow:worktree",
  sandbox: "flow:sandbox",
  aspects: "flow:aspects",
} as const;

/** Internal tables (created by core/store/migrations.ts). */
export const TABLES = {
  meta: "_flow_meta",
  runs: "_flow_runs",
  nodes: "_flow_nodes",
  attempts: "_flow_attempts",
  events: "_flow_events",
  frames: "_flow_frames",
  cache: "_flow_cache",
  waits: "_flow_waits",
  signals: "_flow_signals",
} as const;
