/**
 * @module node/tools/process
 * Runs one tool process (`bash`, `grep`) without a shell, in its own process group, with
 * bounded output and a wall-clock limit (SPEC.md "Limits": SIGKILL at expiry, hard cap one
 * hour). The whole group is killed at the timeout, on abort, and when the main process exits,
 * so a tool call leaves no stragglers behind; descendants that left the group (`setsid`) are
 * reached by the PID namespace `bash` runs in where the machine allows it (isolation.ts), else
 * on Linux by the environment mark of process-sweep.ts, and
 * the call settles on time even when something out of reach holds its pipes (docs/tools.md
 * "bash").
 */
import { spawn } from "node:child_process";
import { FlowError, isFlowError } from "../../core/errors.js";
import { OutputCollector, TOOL_DEFAULTS } from "../../core/tools/index.js";
import { killMarkedProcesses, newToolCallId, TOOL_CALL_ENV } from "./process-sweep.js";

export interface ProcessRequest {
  toolName: string;
  cmd: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** What is actually started, when it differs from `cmd args` (a confining wrapper); messages name `cmd`. */
  spawnAs?: { cmd: string; args: readonly string[] };
  /**
   * Linux without a PID namespace: mark the process's environment and, when the call ends,
   * kill every process carrying the mark (descendants that left the process group).
   */
  sweepDescendants?: boolean;
  /** Keep stderr apart (`stderr` of the result) instead of interleaving it into `output`. */
  separateStderr?: boolean;
}

export interface ProcessResult {
  /** Exit code; null when killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived (stdout only with `separateStderr`), truncated to `maxOutputBytes`. */
  output: string;
  /** With `separateStderr`: stderr, truncated to `maxOutputBytes`. */
  stderr?: string;
}

/** After the main process exits, how long descendants still holding its pipes get before the call settles anyway. */
const CLOSE_GRACE_MS = 250;

/**
 * Runs the process to its end; throws FlowError on spawn failure, timeout or abort. The call
 * settles at its timeout (or abort) whatever still holds the output pipes, and within
 * `CLOSE_GRACE_MS` of the main process's exit.
 */
export function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const timeoutMs = Number.isFinite(req.timeoutMs) ? Math.max(1, Math.min(req.timeoutMs, TOOL_DEFAULTS.maxTimeoutMs)) : TOOL_DEFAULTS.maxTimeoutMs;
  return new Promise<ProcessResult>((resolvePromise, reject) => {
    if (req.signal?.aborted) return reject(abortError(req, req.signal.reason));
    const spawned = req.spawnAs ?? { cmd: req.cmd, args: req.args };
    const callId = req.sweepDescendants ? newToolCallId() : undefined;
    const env = callId ? { ...process.env, [TOOL_CALL_ENV]: callId } : process.env;
    const child = spawn(spawned.cmd, [...spawned.args], { cwd: req.cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"], shell: false });
    const output = new OutputCollector(req.maxOutputBytes);
    const stderr = req.separateStderr ? new OutputCollector(req.maxOutputBytes) : output;
    let failure: FlowError | undefined;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let grace: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
      if (callId) killMarkedProcesses(callId);
    };
    const settle = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      req.signal?.removeEventListener("abort", onAbort);
      // A descendant outside our reach may still hold the pipes: stop reading them.
      child.stdout.destroy();
      child.stderr.destroy();
      if (failure) {
        if (failure.details) failure.details.output = output.text();
        return reject(failure);
      }
      resolvePromise(req.separateStderr ? { exitCode, signal, output: output.text(), stderr: stderr.text() } : { exitCode, signal, output: output.text() });
    };
    const fail = (error: FlowError) => {
      failure ??= error;
      killGroup();
      settle(null, "SIGKILL");
    };
    const timer = setTimeout(() => {
      fail(
        new FlowError("TOOL_TIMEOUT", `Tool "${req.toolName}": \`${req.cmd}\` ran longer than ${timeoutMs} ms and was killed (SIGKILL, with every process it started).`, {
          toolName: req.toolName,
          cmd: req.cmd,
          timeoutMs,
        }),
      );
    }, timeoutMs);
    const onAbort = () => fail(abortError(req, req.signal?.reason));
    req.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => output.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    // The main process is done: whatever it left running would hold the pipes open (and the
    // call hostage) until the timeout, so it goes too; a process out of reach of the group
    // kill gets CLOSE_GRACE_MS, then the call settles without it.
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      killGroup();
      if (!settled) grace = setTimeout(() => settle(code, signal), CLOSE_GRACE_MS);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      failure ??=
        error.code === "ENOENT"
          ? new FlowError("TOOL_COMMAND_NOT_FOUND", `Tool "${req.toolName}": executable \`${req.cmd}\` was not found on PATH.`, { toolName: req.toolName, cmd: req.cmd }, { cause: error })
          : new FlowError("TOOL_COMMAND_FAILED", `Tool "${req.toolName}": \`${req.cmd}\` could not start: ${error.message}`, { toolName: req.toolName, cmd: req.cmd }, { cause: error });
    });
    child.on("close", (exitCode, signal) => settle(exited?.code ?? exitCode, exited?.signal ?? signal));
  });
}

function abortError(req: ProcessRequest, reason: unknown): FlowError {
  if (isFlowError(reason)) return reason;
  return new FlowError("TASK_CANCELLED", `Tool "${req.toolName}": \`${req.cmd}\` was cancelled.`, { toolName: req.toolName, cmd: req.cmd });
}
