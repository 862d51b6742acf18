/**
 * @module core/engine/world
 * Everything the engine needs from the outside world, injected (STYLE.md 3.5): time, timers,
 * ids, logging, owner liveness and log files. Node and the browser supply their versions;
 * tests pass a fake clock.
 */

import type { HotReloadPort, WorkspacePort } from "./workspace-port.js";

/** Time and timers. */
export interface ClockPort {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** An append-only log file of one run. */
export interface RunLogSink {
  write(line: string): void;
  close(): Promise<void>;
}

/** The runtime a workflow runs in. */
export interface RuntimeEnv {
  clock: ClockPort;
  /** A fresh unique id (run ids). */
  newId(): string;
  /** The claim owner id of this process. */
  ownerId: string;
  /**
   * Whether the process that owns a claim is alive: `false` only when it is certainly gone
   * (same host, pid not running); `undefined` when it cannot tell (then the heartbeat decides).
   */
  isOwnerAlive?(ownerId: string): boolean | undefined;
  /** Opens `<logDir>/<runId>.ndjson` for appending; absent where there is no file system. */
  openRunLog?(logDir: string, runId: string): RunLogSink;
  /** Default log directory when `RunOptions.logDir` is undefined (null: no file log). */
  defaultLogDir?: string | null;
  /** Worktrees and sandboxes for subtrees (Node). */
  workspaces?: WorkspacePort;
  /** Hot reload of workflow files (Node). */
  hotReload?: HotReloadPort;
  /** The process's working directory: the default `rootDir` of runs. */
  cwd?: string;
  /** Hash of a workflow file's source (so editing the file is noticed on resume). */
  hashWorkflowFile?(path: string): string | undefined;
  /** Non-fatal warnings (workflow changed, ...). */
  warn(message: string, details?: Record<string, unknown>): void;
  /** How often a running run renews its claim (default 5000 ms). */
  claimHeartbeatMs: number;
  /** A claim not renewed for this long is stale and may be taken over (default 30000 ms). */
  claimStaleMs: number;
}

/** The clock of the host (wraps the global timers; tests inject their own). */
export const systemClock: ClockPort = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A runtime env for hosts without process information (browser, worker). */
export function createDefaultEnv(overrides: Partial<RuntimeEnv> = {}): RuntimeEnv {
  return {
    clock: systemClock,
    newId: () => globalThis.crypto.randomUUID(),
    ownerId: `owner:${globalThis.crypto.randomUUID()}`,
    warn: (message, details) => console.warn(`[flow] ${message}`, details ?? ""),
    claimHeartbeatMs: 5000,
    claimStaleMs: 30000,
    defaultLogDir: null,
    ...overrides,
  };
}
