/**
 * @module core/engine/execute
 * Runs one task attempt: a static row, a compute function, a deps-aware function or an agent
 * prompt; enforces `timeoutMs` and `heartbeatTimeoutMs`; validates the row against the output
 * schema. A compute function runs with its attempt current (core/tools/current-attempt.ts), so
 * the tools its code calls work in the task's directory and are journaled with the attempt.
 * Never throws: the outcome says what happened.
 */
import { agentSpendOf, runAgentTask } from "../agents/index.js";
import type { AgentLike } from "../agents/index.js";
import type { TaskRuntime } from "../components/index.js";
import { FlowError, isFlowError } from "../errors.js";
import { isFlowElement, renderNodes, textOf } from "../jsx/index.js";
import type { AnyObjectSchema } from "../schema/index.js";
import type { AttemptSnapshots } from "./travel/snapshots.js";
import type { AttemptServices } from "./attempt-services.js";
import type { NodeDescriptor, SubflowSpec } from "./describe-node.js";
import type { SubflowOutcome } from "./subflow.js";
import type { TaskDescriptor } from "./types.js";
import type { WorkspacePort } from "./workspace-port.js";
import type { ClockPort } from "../util/index.js";

/**
 * `input`: what the task was given (prompt, row or deps), for scorers; `vcs`: the workspace
 * snapshots taken; a failed attempt's `meta`: what its agent had spent (`agentSpendOf`).
 */
export type AttemptOutcome = ({ ok: true; row: Record<string, unknown>; meta?: Record<string, unknown>; input?: unknown } | { ok: false; error: FlowError; meta?: Record<string, unknown> }) & {
  vcs?: { start?: string; end?: string };
};

export interface AttemptInput {
  runId: string;
  desc: TaskDescriptor;
  attempt: number;
  /** Schema the stored row must satisfy. */
  schema: AnyObjectSchema;
  deps: Record<string, unknown>;
  clock: ClockPort;
  /** Aborted when the run is cancelled or the task leaves the tree. */
  signal: AbortSignal;
  /** Agents whose preflight already ran in this run. */
  preflighted: WeakSet<AgentLike>;
  /** The run's root directory. */
  rootDir: string;
  /** Prepares the task's Worktree or Sandbox (absent where the host has no file system). */
  workspaces?: WorkspacePort;
  /** Runs a Subflow's child run to its end. */
  runSubflow(spec: SubflowSpec, childRunId: string): Promise<SubflowOutcome>;
  /** Tools, sessions and memory for agent tasks. */
  services?: AttemptServices;
  /** Snapshots of the run's workspace at the attempt's start and successful end (time travel). */
  snapshots?: AttemptSnapshots;
  onHeartbeat?(data?: unknown): void;
}

/** Runs the attempt to its outcome. */
export async function executeAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { desc, clock } = input;
  // The tree the attempt starts from, before its timeout and heartbeat clocks start.
  const vcs: { start?: string; end?: string } = {};
  const start = await input.snapshots?.take(desc.nodeId, desc.iteration, input.attempt, "start");
  if (start) vcs.start = start;
  const controller = new AbortController();
  const abort = (reason: FlowError) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onRunAbort = () => abort(new FlowError("TASK_CANCELLED", `Task "${desc.nodeId}" was cancelled.`, { nodeId: desc.nodeId }));
  if (input.signal.aborted) onRunAbort();
  input.signal.addEventListener("abort", onRunAbort, { once: true });

  const timers: unknown[] = [];
  if (desc.timeoutMs !== null) {
    timers.push(
      clock.setTimeout(
        () => abort(new FlowError("TASK_TIMEOUT", `Task "${desc.nodeId}" timed out after ${desc.timeoutMs} ms (attempt ${input.attempt}).`, { nodeId: desc.nodeId, timeoutMs: desc.timeoutMs })),
        desc.timeoutMs,
      ),
    );
  }
  let heartbeatTimer: unknown;
  const armHeartbeat = () => {
    if (desc.heartbeatTimeoutMs === null) return;
    if (heartbeatTimer !== undefined) clock.clearTimeout(heartbeatTimer);
    heartbeatTimer = clock.setTimeout(
      () =>
        abort(
          new FlowError("TASK_HEARTBEAT_TIMEOUT", `Task "${desc.nodeId}" sent no heartbeat for ${desc.heartbeatTimeoutMs} ms.`, {
            nodeId: desc.nodeId,
            heartbeatTimeoutMs: desc.heartbeatTimeoutMs,
          }),
        ),
      desc.heartbeatTimeoutMs,
    );
  };
  armHeartbeat();

  const runtime: TaskRuntime = {
    rootDir: input.rootDir,
    runId: input.runId,
    nodeId: desc.nodeId,
    iteration: desc.iteration,
    attempt: input.attempt,
    signal: controller.signal,
    heartbeat(data) {
      armHeartbeat();
      input.onHeartbeat?.(data);
    },
  };
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);

  const withVcs = (outcome: AttemptOutcome): AttemptOutcome => (vcs.start ? { ...outcome, vcs } : outcome);
  try {
    const produced = await Promise.race([produce(input, runtime), aborted]);
    if (controller.signal.aborted) throw controller.signal.reason;
    const parsed = input.schema.safeParse(produced.raw);
    if (!parsed.success) {
      throw new FlowError(
        "TASK_OUTPUT_INVALID",
        `Task "${desc.nodeId}" produced a row that does not match its "${desc.outputTable}" schema: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ")}`,
        { nodeId: desc.nodeId, issues: parsed.error.issues as unknown as Record<string, unknown>[] },
      );
    }
    const end = await input.snapshots?.take(desc.nodeId, desc.iteration, input.attempt, "end");
    if (end) vcs.end = end;
    return withVcs({ ok: true, row: parsed.data as Record<string, unknown>, ...(produced.meta ? { meta: produced.meta } : {}), input: produced.input });
  } catch (error) {
    // Cut by its timeout or a cancel, the attempt ends with the signal's reason, not its agent's error.
    const spent = agentSpendOf(error) ?? agentSpendOf(controller.signal);
    return withVcs({ ok: false, error: asTaskError(error, desc), ...(spent ? { meta: { ...spent } } : {}) });
  } finally {
    input.signal.removeEventListener("abort", onRunAbort);
    for (const t of timers) clock.clearTimeout(t);
    if (heartbeatTimer !== undefined) clock.clearTimeout(heartbeatTimer);
  }
}

async function produce(input: AttemptInput, runtime: TaskRuntime): Promise<{ raw: unknown; meta?: Record<string, unknown>; input?: unknown }> {
  const desc = input.desc as NodeDescriptor;
  if (desc.workspace) runtime.rootDir = await prepareWorkspace(input, desc);
  if (desc.subflow) return runChild(input, desc.subflow);
  if (desc.staticPayload !== undefined && !desc.agent) return { raw: desc.staticPayload, input: desc.staticPayload };
  const { services } = input;
  const scope = { runId: input.runId, desc, attempt: input.attempt, rootDir: runtime.rootDir ?? input.rootDir, signal: runtime.signal };
  const attempt = services?.attemptOf(scope);
  let value: unknown = desc.prompt;
  if (desc.computeFn) {
    const fn = desc.computeFn;
    const code = () => (desc.depsAware ? fn(input.deps, runtime) : fn(runtime));
    value = await (attempt ? services!.runTaskCode(attempt, code) : code());
  }
  if (!desc.agent) return { raw: value, input: desc.depsAware ? input.deps : undefined };
  const prompt = typeof value === "string" ? value : isFlowElement(value) ? textOf(renderNodes(value, undefined)) : JSON.stringify(value);
  const prepared = attempt ? await services!.forAgent(scope, attempt, prompt) : { prompt, extras: {} };
  const result = await runAgentTask({ runId: input.runId, desc, attempt: input.attempt, prompt: prepared.prompt, runtime, preflighted: input.preflighted, ...prepared.extras });
  return { ...result, input: prompt };
}

async function prepareWorkspace(input: AttemptInput, desc: NodeDescriptor): Promise<string> {
  const ws = desc.workspace!;
  if (!input.workspaces) {
    throw new FlowError("NOT_IMPLEMENTED", `Task "${desc.nodeId}" runs in ${ws.kind} "${ws.id}", which needs a host with a file system (Node).`, { nodeId: desc.nodeId });
  }
  const prepared = await input.workspaces.prepare({ ...ws, runId: input.runId, rootDir: input.rootDir });
  if (ws.kind === "worktree") {
    desc.worktreePath = prepared.path;
    if (prepared.branch) desc.worktreeBranch = prepared.branch;
  }
  return prepared.path;
}

/** A Subflow: the child run's output is the row; its failure is the attempt's failure. */
async function runChild(input: AttemptInput, spec: SubflowSpec): Promise<{ raw: unknown; meta: Record<string, unknown> }> {
  const { desc } = input;
  const childRunId = `${input.runId}/${desc.nodeId}@${desc.iteration}`;
  const { result, usage } = await input.runSubflow(spec, childRunId);
  if (result.status !== "finished") {
    throw new FlowError(
      result.status === "cancelled" ? "TASK_CANCELLED" : "SUBFLOW_FAILED",
      `Subflow "${desc.nodeId}" (run ${childRunId}) ended ${result.status}${result.error ? `: ${result.error.code}: ${result.error.message}` : ""}.`,
      { nodeId: desc.nodeId, childRunId, status: result.status, ...(result.error ? { error: result.error } : {}) },
    );
  }
  return { raw: result.output ?? {}, meta: { childRunId, ...(usage ? { childUsage: usage } : {}) } };
}

function asTaskError(error: unknown, desc: TaskDescriptor): FlowError {
  if (isFlowError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new FlowError("TASK_FAILED", `Task "${desc.nodeId}" failed: ${message}`, { nodeId: desc.nodeId, iteration: desc.iteration }, { cause: error });
}
