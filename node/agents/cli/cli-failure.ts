/**
 * @module node/agents/cli/cli-failure
 * Turns a failed CLI run into a FlowError with the right code (CLI-AGENTS.md section 2,
 * "Failure text" and "Classification"; docs/agents.md, "Failures and quota"):
 * quota → `AGENT_QUOTA_EXCEEDED` (with `retryAtMs`), configuration or auth →
 * `AGENT_CONFIG_INVALID`, a resumed session that is gone → `AGENT_SESSION_LOST`, anything else
 * → `AGENT_CLI_ERROR`. Stops by Flow (timeouts, abort) get `PROCESS_*` codes.
 */
import { classifyFailureText } from "../../../core/agents/index.js";
import { FlowError } from "../../../core/errors.js";
import type { CliProcessResult } from "./cli-process.js";
import type { InterpretedOutput } from "./cli-types.js";
import { jsonLine } from "./cli-types.js";

const LOST_SESSION = /No conversation found with session ID|session (?:not found|does not exist)|conversation (?:not found|does not exist)|To resume this session: kimi -r/i;

export interface FailureContext {
  agentId: string;
  engine: string;
  command: string;
  run: CliProcessResult;
  interpreted: InterpretedOutput;
  harmlessStderr?: RegExp[];
  sessionId?: string;
  resumeSession?: string;
  totalMs?: number;
  idleMs?: number;
  nowMs: number;
}

/** The error of a run Flow stopped (timeout, idle timeout, abort), or undefined. */
export function stopError(ctx: FailureContext): FlowError | undefined {
  const details = { agentId: ctx.agentId, engine: ctx.engine, command: ctx.command, sessionId: ctx.sessionId ?? null };
  switch (ctx.run.stop) {
    case "timeout":
      return new FlowError("PROCESS_TIMEOUT", `CLI timed out after ${ctx.totalMs} ms (${ctx.command}, agent ${ctx.agentId}); its process group was killed. Raise timeoutMs or split the task.`, { ...details, timeoutMs: ctx.totalMs });
    case "idle":
      return new FlowError("PROCESS_IDLE_TIMEOUT", `CLI printed nothing for ${ctx.idleMs} ms (${ctx.command}, agent ${ctx.agentId}); its process group was killed. Raise idleTimeoutMs if the tool works silently.`, { ...details, idleTimeoutMs: ctx.idleMs });
    case "aborted":
      return new FlowError("PROCESS_ABORTED", `CLI run aborted (${ctx.command}, agent ${ctx.agentId}); its process group was killed.`, details);
    default:
      return undefined;
  }
}

/** Whether the run failed: non-zero exit (with the variant-2 quirk), a failed result, or a quota banner. */
export function runFailed(ctx: FailureContext, exitCodeNeedsStderr: boolean | undefined, stdoutError: RegExp | undefined): boolean {
  const { run, interpreted } = ctx;
  if (interpreted.ok === false || interpreted.quota) return true;
  // A conversation Flow ended itself (RPC modes): the exit status says nothing.
  if (run.stop === "done") return false;
  if (stdoutError && run.stdout.split("\n").some((l) => stdoutError.test(l.trim()))) return true;
  if (run.exitCode !== 0 && run.exitCode !== null) return !(exitCodeNeedsStderr && filteredStderr(run.stderr, ctx.harmlessStderr) === "");
  if (run.exitCode === null && run.stop === "exited") return true; // killed by a signal we did not send
  // Usage-limit banners can arrive as plain lines with exit 0 and no result.
  if (interpreted.answer === undefined && !interpreted.streamed) {
    const plain = run.stdout.split("\n").filter((l) => l.trim() && !jsonLine(l)).join("\n");
    return plain !== "" && classifyFailureText(plain, ctx.nowMs).kind === "quota";
  }
  return false;
}

/** The FlowError of a failed run, classified from its error text. */
export function failureError(ctx: FailureContext): FlowError {
  const text = failureText(ctx);
  const details: Record<string, unknown> = {
    agentId: ctx.agentId,
    engine: ctx.engine,
    command: ctx.command,
    exitCode: ctx.run.exitCode,
    sessionId: ctx.sessionId ?? null,
    stderr: ctx.run.stderr.slice(0, 2000),
  };
  const where = `(${ctx.command}, agent ${ctx.agentId})`;
  const failure = ctx.interpreted.quota ? { kind: "quota" as const, retryAtMs: classifyFailureText(`rate limit exceeded ${text}`, ctx.nowMs).retryAtMs } : classifyFailureText(text, ctx.nowMs);
  if (failure.kind === "quota") {
    return new FlowError("AGENT_QUOTA_EXCEEDED", `CLI hit a usage or rate limit ${where}: ${text}`, { ...details, retryAtMs: failure.retryAtMs });
  }
  if (ctx.resumeSession && LOST_SESSION.test(`${text}\n${ctx.run.stderr}`)) {
    return new FlowError("AGENT_SESSION_LOST", `CLI session ${ctx.resumeSession} is gone ${where}; the next call starts a new session.`, { ...details, discardResumeSession: ctx.resumeSession });
  }
  if (failure.kind === "config") {
    return new FlowError("AGENT_CONFIG_INVALID", `CLI is not configured ${where}: ${text}. Check its login, API key and model.`, details);
  }
  return new FlowError("AGENT_CLI_ERROR", `CLI failed ${where}: ${text}`, details);
}

/** Error text, first found (CLI-AGENTS.md section 2). */
function failureText(ctx: FailureContext): string {
  const lines = ctx.run.stdout.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const j = jsonLine(lines[i]!);
    if (j && (j.type === "error" || j.type === "turn.failed")) {
      const m = j.error?.message ?? j.error?.data?.message ?? j.message ?? j.error;
      if (typeof m === "string" && m) return m;
    }
  }
  const e = ctx.interpreted.error;
  if (e && !/exited with code/i.test(e)) return e;
  const stderr = filteredStderr(ctx.run.stderr, ctx.harmlessStderr);
  if (stderr) return stderr;
  const stdout = ctx.run.stdout.trim();
  if (stdout) return stdout.slice(-2000);
  return `CLI exited with code ${ctx.run.exitCode ?? ctx.run.signal}`;
}

function filteredStderr(stderr: string, harmless: RegExp[] | undefined): string {
  return stderr
    .split("\n")
    .filter((l) => l.trim() && !(harmless ?? []).some((re) => re.test(l)))
    .join("\n")
    .trim();
}
