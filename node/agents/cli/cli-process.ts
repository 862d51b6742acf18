/**
 * @module node/agents/cli/cli-process
 * One run of a CLI agent's executable (docs/agents.md, "What a CLI agent spawns"):
 *
 * - spawned from `PATH` (the merged environment's) in its own process group (`detached`), so
 *   the whole tree can be signalled at once;
 * - stdout/stderr stream to the callbacks as they arrive, stdout also line by line to the
 *   interpreter (before the cap, so a result line survives truncation);
 * - a hard `totalMs`, an `idleMs` reset by any output, and the abort signal each stop it:
 *   abort kills the group with SIGKILL at once; timeouts send SIGTERM, then SIGKILL 250 ms later;
 * - when the main process exits, what is left of its group is killed, so no grandchild
 *   outlives a generation and holds the pipes open;
 * - captured output is capped per stream (stdout keeps the tail, stderr the head).
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { FlowError } from "../../../core/errors.js";
import { CappedOutput } from "./capped-output.js";

/** Grace between SIGTERM and SIGKILL when a timeout stops a CLI. */
export const KILL_GRACE_MS = 250;

export interface CliProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin; stdin is then closed unless `keepStdinOpen`. */
  stdin?: string;
  keepStdinOpen?: boolean;
  totalMs?: number;
  idleMs?: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onStdout?(text: string): void;
  onStderr?(text: string): void;
  onLine?(line: string): void;
}

/** How a run ended: by itself, or stopped by Flow. */
export type CliStop = "exited" | "timeout" | "idle" | "aborted" | "done";

export interface CliProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stop: CliStop;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
}

/**
 * A running CLI. `result` settles when its stdio closed; it rejects only when the executable
 * could not be started (`PROCESS_SPAWN_FAILED`).
 * @example
 * const p = CliProcess.start({ command: "codex", args: ["exec", "-"], cwd, env, stdin: prompt, maxOutputBytes: 200_000 });
 * const { exitCode, stdout } = await p.result;
 */
export class CliProcess {
  readonly result: Promise<CliProcessResult>;
  private readonly child: ChildProcess;
  private stopReason: CliStop = "exited";
  private exited = false;
  private closed = false;
  private killTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly opts: CliProcessOptions) {
    const started = Date.now();
    this.child = spawn(opts.command, opts.args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const stdout = new CappedOutput(opts.maxOutputBytes, "tail");
    const stderr = new CappedOutput(opts.maxOutputBytes, "head");
    const timers: NodeJS.Timeout[] = [];
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      if (opts.idleMs === undefined) return;
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => this.stop("idle"), opts.idleMs);
    };
    if (opts.totalMs !== undefined) timers.push(setTimeout(() => this.stop("timeout"), opts.totalMs));
    armIdle();
    const onAbort = () => this.stop("aborted");
    if (opts.signal?.aborted) queueMicrotask(onAbort);
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    const outDecoder = new StringDecoder("utf8");
    let partial = "";
    const emitLines = (text: string, flush: boolean) => {
      partial += text;
      const lines = partial.split("\n");
      partial = flush ? "" : lines.pop()!;
      for (const line of lines) if (line.trim()) opts.onLine?.(line.replace(/\r$/, ""));
    };
    this.child.stdout!.on("data", (chunk: Buffer) => {
      armIdle();
      stdout.push(chunk);
      const text = outDecoder.write(chunk);
      if (text) {
        opts.onStdout?.(text);
        emitLines(text, false);
      }
    });
    const errDecoder = new StringDecoder("utf8");
    this.child.stderr!.on("data", (chunk: Buffer) => {
      armIdle();
      stderr.push(chunk);
      const text = errDecoder.write(chunk);
      if (text) opts.onStderr?.(text);
    });
    // EPIPE when the CLI exits before reading its stdin is not our failure.
    this.child.stdin!.on("error", () => undefined);
    if (opts.stdin !== undefined) this.child.stdin!.write(opts.stdin);
    if (!opts.keepStdinOpen) this.child.stdin!.end();

    this.result = new Promise<CliProcessResult>((resolve, reject) => {
      const cleanup = () => {
        for (const t of timers) clearTimeout(t);
        if (idle) clearTimeout(idle);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      this.child.once("error", (error: NodeJS.ErrnoException) => {
        if (this.child.pid !== undefined) return; // a late error of a started process; `close` follows
        cleanup();
        this.closed = true;
        reject(
          new FlowError(
            "PROCESS_SPAWN_FAILED",
            error.code === "ENOENT" ? `Could not start "${opts.command}": it is not on PATH. Install it or add its directory to PATH.` : `Could not start "${opts.command}": ${error.message}`,
            { command: opts.command, errno: error.code ?? null },
            { cause: error },
          ),
        );
      });
      this.child.once("exit", () => {
        this.exited = true;
        // Whatever the CLI left running in its group goes with it.
        this.signalGroup("SIGKILL");
      });
      this.child.once("close", (exitCode, signal) => {
        this.closed = true;
        if (this.killTimer) clearTimeout(this.killTimer);
        cleanup();
        emitLines(outDecoder.end(), true);
        const out = stdout.result();
        const err = stderr.result();
        resolve({ exitCode, signal, stop: this.stopReason, stdout: out.text, stderr: err.text, stdoutTruncated: out.truncated, stderrTruncated: err.truncated, durationMs: Date.now() - started });
      });
    });
  }

  /**
   * Spawns the CLI.
   * @example
   * const p = CliProcess.start({ command: "hermes", args: ["-z", "hi"], cwd: process.cwd(), env: { PATH: process.env.PATH! }, maxOutputBytes: 200_000 });
   */
  static start(opts: CliProcessOptions): CliProcess {
    return new CliProcess(opts);
  }

  /** Writes one line to stdin (RPC modes). */
  writeLine(line: string): void {
    if (!this.closed && this.child.stdin!.writable) this.child.stdin!.write(`${line}\n`);
  }

  /** Closes stdin. */
  closeStdin(): void {
    this.child.stdin!.end();
  }

  /**
   * Stops the CLI and its whole process group: at once for an abort, politely (SIGTERM, then
   * SIGKILL after {@link KILL_GRACE_MS}) for timeouts and a finished RPC conversation.
   */
  stop(reason: Exclude<CliStop, "exited">): void {
    if (this.closed) return;
    if (this.stopReason === "exited") this.stopReason = reason;
    if (reason === "aborted") {
      this.signalGroup("SIGKILL");
      return;
    }
    this.signalGroup("SIGTERM");
    // The timer is cleared on `close`, so it never signals a group id the system reused.
    this.killTimer ??= setTimeout(() => this.signalGroup("SIGKILL"), KILL_GRACE_MS);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || this.closed) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
      if (!this.exited) this.child.kill(signal);
    }
  }
}
