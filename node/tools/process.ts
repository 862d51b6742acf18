/**
 * @module node/tools/process
 * Runs one tool process (`bash`, `grep`) without a shell, in its own process group, with
 * bounded output and a wall-clock limit (SPEC.md "Limits": SIGKILL at expiry, hard cap one
 * hour). The whole group is killed at the timeout, on abort, and when the main process exits,
 * so a tool call leaves no stragglers behind (docs/tools.md "bash").
 */
import { spawn } from "node:child_process";
import { FlowError, isFlowError } from "../../core/errors.js";
import { OutputCollector } from "../../core/tools/output-limit.js";
import { TOOL_DEFAULTS } from "../../core/tools/types.js";

export interface ProcessRequest {
  toolName: string;
  cmd: string;
  args: readonly string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
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

/** Runs the process to its end; throws FlowError on spawn failure, timeout or abort. */
export function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const timeoutMs = Math.max(1, Math.min(req.timeoutMs, TOOL_DEFAULTS.maxTimeoutMs));
  return new Promise<ProcessResult>((resolvePromise, reject) => {
    if (req.signal?.aborted) return reject(abortError(req, req.signal.reason));
    const child = spawn(req.cmd, [...req.args], { cwd: req.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], shell: false });
    const output = new OutputCollector(req.maxOutputBytes);
    const stderr = req.separateStderr ? new OutputCollector(req.maxOutputBytes) : output;
    let failure: FlowError | undefined;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const timer = setTimeout(() => {
      failure ??= new FlowError("TOOL_TIMEOUT", `Tool "${req.toolName}": \`${req.cmd}\` ran longer than ${timeoutMs} ms and was killed (SIGKILL, with its process group).`, {
        toolName: req.toolName,
        cmd: req.cmd,
        timeoutMs,
      });
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      failure ??= abortError(req, req.signal?.reason);
      killGroup();
    };
    req.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => output.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    // The main process is done: whatever it left running in its group would hold the pipes
    // open (and the call hostage) until the timeout, so it goes too.
    child.on("exit", killGroup);
    child.on("error", (error: NodeJS.ErrnoException) => {
      failure ??=
        error.code === "ENOENT"
          ? new FlowError("TOOL_COMMAND_NOT_FOUND", `Tool "${req.toolName}": executable \`${req.cmd}\` was not found on PATH.`, { toolName: req.toolName, cmd: req.cmd }, { cause: error })
          : new FlowError("TOOL_COMMAND_FAILED", `Tool "${req.toolName}": \`${req.cmd}\` could not start: ${error.message}`, { toolName: req.toolName, cmd: req.cmd }, { cause: error });
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      if (failure) {
        if (failure.details) failure.details.output = output.text();
        return reject(failure);
      }
      resolvePromise(req.separateStderr ? { exitCode, signal, output: output.text(), stderr: stderr.text() } : { exitCode, signal, output: output.text() });
    });
  });
}

function abortError(req: ProcessRequest, reason: unknown): FlowError {
  if (isFlowError(reason)) return reason;
  return new FlowError("TASK_CANCELLED", `Tool "${req.toolName}": \`${req.cmd}\` was cancelled.`, { toolName: req.toolName, cmd: req.cmd });
}
