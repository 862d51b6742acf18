/**
 * @module node/agents/cli/hijack
 * Hijack: a person takes over a CLI agent's session in a terminal, with the CLI's own resume
 * command (shared/CLI-AGENTS.md, "Native hijack"), and the task goes on from what the session
 * produced (docs/agents.md, "Hijack"). `planHijack` finds the node's latest agent session and
 * the command that reopens it; `finishHijack` hands the node back to the run afterwards;
 * `hijackNode` does both around an interactive process (what `flow hijack` and the Gateway's
 * `hijackRun` call).
 */
import { spawn } from "node:child_process";
import { FlowDb, retryTask } from "../../../core/engine/index.js";
import type { HijackPlanSummary } from "../../../core/api/internal.js";
import { FlowError } from "../../../core/errors.js";

/** The interactive command that reopens a session. */
export interface HijackCommand {
  command: string;
  args: string[];
  /** Variables to set (an empty string unsets one: a nested-instance marker). */
  env?: Record<string, string>;
}

/** Engines with a native resume command, and that command (shared/CLI-AGENTS.md). */
const NATIVE: Record<string, (sessionId: string, cwd: string) => HijackCommand> = {
  "claude-code": (id) => ({ command: "claude", args: ["--resume", id], env: { CLAUDECODE: "", CLAUDE_CODE_ENTRYPOINT: "" } }),
  antigravity: (id) => ({ command: "agy", args: ["--conversation", id] }),
  codex: (id, cwd) => ({ command: "codex", args: ["resume", id, "-C", cwd] }),
  pi: (id) => ({ command: "pi", args: ["--session", id] }),
  kimi: (id, cwd) => ({ command: "kimi", args: ["--session", id, "--work-dir", cwd] }),
  forge: (id, cwd) => ({ command: "forge", args: ["--conversation-id", id, "-C", cwd] }),
  amp: (id) => ({ command: "amp", args: ["threads", "continue", id] }),
};

/**
 * The command that reopens `sessionId` of `engine` interactively in `cwd`; HIJACK_UNSUPPORTED
 * for engines without native hijack (omp, opencode, vibe, openclaw, hermes, gemini).
 * @example
 * nativeHijackCommand("codex", "th_123", "/repo"); // { command: "codex", args: ["resume", "th_123", "-C", "/repo"] }
 */
export function nativeHijackCommand(engine: string, sessionId: string, cwd: string): HijackCommand {
  const make = NATIVE[engine];
  if (!make) {
    throw new FlowError("HIJACK_UNSUPPORTED", `The ${engine} CLI has no native session resume that a person can take over; hijack works with ${Object.keys(NATIVE).join(", ")}.`, { engine });
  }
  return make(sessionId, cwd);
}

/** What a hijack of one node will do (the same shape the Gateway's `hijackRun` answers). */
export type HijackPlan = HijackPlanSummary;

export interface HijackInput {
  runId: string;
  nodeId: string;
  /** Default: the latest iteration with an agent session. */
  iteration?: number;
  /** Where the session runs (default: where the agent ran it, else the run's directory, else the process's). */
  cwd?: string;
}

type Adapter = FlowDb | { db?: unknown };
const flowDbOf = (a: Adapter) => (a instanceof FlowDb ? a : new FlowDb((a as { db?: unknown }).db ?? a));

/**
 * Finds the node's latest CLI-agent session and the command that reopens it. Refuses while an
 * attempt of the node is running (pause the run first, so two drivers never share a session),
 * for a Task with `hijack={false}`, and for engines without native hijack.
 * @example
 * const plan = await planHijack(api, { runId, nodeId: "fix" }); // { command: "claude", args: ["--resume", "…"], ... }
 */
export async function planHijack(adapter: Adapter, input: HijackInput): Promise<HijackPlan> {
  const db = flowDbOf(adapter);
  const run = await db.requireRun(input.runId);
  const attempts = (await db.listAttempts(input.runId, input.nodeId)).filter((a) => input.iteration === undefined || a.iteration === input.iteration);
  if (attempts.some((a) => a.state === "in-progress")) {
    throw new FlowError("RUN_ALREADY_RUNNING", `Task "${input.nodeId}" of run ${input.runId} is running; pause the run first (pauseRun, or Ctrl-C its flow up), then hijack its session.`, { runId: input.runId, nodeId: input.nodeId });
  }
  const withSession = attempts.filter((a) => typeof (a.meta as { sessionId?: unknown } | null)?.sessionId === "string").sort((a, b) => a.iteration - b.iteration || a.attempt - b.attempt);
  const last = withSession.at(-1);
  if (!last) {
    throw new FlowError("HIJACK_UNSUPPORTED", `Task "${input.nodeId}" of run ${input.runId} has no agent session to take over (it has not run a CLI agent that reports one).`, { runId: input.runId, nodeId: input.nodeId });
  }
  const meta = last.meta as { sessionId: string; engine?: string | null; sessionDir?: string };
  const frame = await db.getFrame(input.runId);
  const desc = frame?.tasks.find((t) => t.nodeId === input.nodeId && t.iteration === last.iteration) as { hijack?: unknown; onHijackExit?: "complete" | "reopen" } | undefined;
  if (desc?.hijack === false) throw new FlowError("HIJACK_UNSUPPORTED", `Task "${input.nodeId}" says hijack={false}.`, { runId: input.runId, nodeId: input.nodeId });
  // A CLI finds a session by the directory it ran in (claude's projects are per directory).
  const cwd = input.cwd ?? meta.sessionDir ?? run.rootDir ?? process.cwd();
  const command = nativeHijackCommand(meta.engine ?? "unknown", meta.sessionId, cwd);
  return { ...command, runId: input.runId, nodeId: input.nodeId, iteration: last.iteration, attempt: last.attempt, engine: meta.engine ?? "unknown", sessionId: meta.sessionId, cwd, onHijackExit: desc?.onHijackExit ?? "complete" };
}

/**
 * Hands the node back after the person left the session: it is reset (with what depends on
 * it) so its next attempt continues that same session. With `complete`, resume the run now
 * (`resume: true`): the agent's answer, with the person's work in its context, is the row. With
 * `reopen`, the node waits as pending for whoever resumes the run.
 * @example
 * const { resume } = await finishHijack(api, plan); if (resume) await runWorkflow(workflow, { runId: plan.runId, resume: true });
 */
export async function finishHijack(adapter: Adapter, plan: HijackPlan): Promise<{ resetNodes: string[]; resume: boolean }> {
  const r = await retryTask(flowDbOf(adapter), { runId: plan.runId, nodeId: plan.nodeId, iteration: plan.iteration, force: true });
  if (!r.success) throw new FlowError("INVALID_ARGUMENT", `Could not hand task "${plan.nodeId}" of run ${plan.runId} back after the hijack: ${r.error}`, { runId: plan.runId, nodeId: plan.nodeId });
  return { resetNodes: r.resetNodes, resume: plan.onHijackExit === "complete" };
}

/**
 * Plans, runs the session interactively (inheriting this terminal unless `stdio` says
 * otherwise) and hands the node back. Resolves with the plan, the session's exit code and
 * whether to resume the run now.
 * @example
 * const { resume } = await hijackNode(api, { runId, nodeId: "fix" });
 */
export async function hijackNode(adapter: Adapter, input: HijackInput, opts: { stdio?: "inherit" | "ignore" } = {}): Promise<{ plan: HijackPlan; exitCode: number | null; resetNodes: string[]; resume: boolean }> {
  const plan = await planHijack(adapter, input);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(plan.env ?? {})) {
    if (v === "") delete env[k];
    else env[k] = v;
  }
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(plan.command, plan.args, { cwd: plan.cwd, env, stdio: opts.stdio ?? "inherit" });
    child.on("error", (error) => reject(new FlowError("AGENT_CONFIG_INVALID", `Could not start "${plan.command}" to hijack the ${plan.engine} session ${plan.sessionId}: ${error.message}; is it on PATH?`, { command: plan.command }, { cause: error })));
    child.on("exit", (code) => resolve(code));
  });
  return { plan, exitCode, ...(await finishHijack(adapter, plan)) };
}
