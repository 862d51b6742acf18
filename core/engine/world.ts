/**
 * @module core/engine/world
 * Everything the engine needs from the outside world, injected (STYLE.md 3.5): time, timers,
 * ids, logging, owner liveness and log files. Node and the browser supply their versions;
 * tests pass a fake clock.
 */

import type { VcsPort } from "../time-travel/index.js";
import type { AttemptContextPort } from "../tools/index.js";
import type { RunTracing } from "../tracing/index.js";
import { type ClockPort, systemClock } from "../util/index.js";
import type { HotReloadPort, WorkspacePort } from "./workspace-port.js";


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
  /** Workspace snapshots and restores for time travel (Node: git; browser: isomorphic-git). */
  vcs?: VcsPort;
  /** `false` stops snapshotting attempts (Node: `FLOW_SNAPSHOTS=off`); time travel still restores. */
  recordSnapshots?: boolean;
  /**
   * Carries the current task attempt through a compute function's awaits, so a tool its code
   * calls is bound to the attempt (Node: an `AsyncLocalStorage`; absent in a browser). Use the
   * port `installAttemptContext` returns: tools read that one.
   */
  attemptContext?: AttemptContextPort;
  /** The process's working directory: the default `rootDir` of runs. */
  cwd?: string;
  /** Whether a directory exists (Node): a run whose recorded workspace is gone is not resumed. */
  directoryExists?(path: string): boolean;
  /** Hash of a workflow file's source (so editing the file is noticed on resume). */
  hashWorkflowFile?(path: string): string | undefined;
  /**
   * The host's tracing, when it has one configured (Node: OTLP/HTTP when
   * `OTEL_EXPORTER_OTLP_ENDPOINT` is set); used by runs whose `tracing` is unset or `true`.
   */
  tracing?(): Promise<RunTracing | undefined>;
  /** Non-fatal warnings (workflow changed, ...). */
  warn(message: string, details?: Record<string, unknown>): void;
  /**
   * Lets the host run its own work (signal handlers such as Ctrl-C, log writes, sockets): the
   * run loop calls it at least every `YIELD_EVERY_MS` of continuous work, since settling tasks
   * whose code never waits on I/O would otherwise only ever queue microtasks.
   */
  yieldToHost(): Promise<void>;
  /** How often a running run renews its claim (default 5000 ms). */
  claimHeartbeatMs: number;
  /** A claim not renewed for this long is stale and may be taken over (default 30000 ms). */
  claimStaleMs: number;
}

/** The longest the run loop works before it lets the host run (`RuntimeEnv.yieldToHost`). */
export const YIELD_EVERY_MS = 20;

/** A macrotask turn: a message to ourselves where channels exist (no timer clamping), else a timer. */
function macrotask(): Promise<void> {
  const Channel = globalThis.MessageChannel;
  if (!Channel) return new Promise((resolve) => systemClock.setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const { port1, port2 } = new Channel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** A runtime env for hosts without process information (browser, worker). */
export function createDefaultEnv(overrides: Partial<RuntimeEnv> = {}): RuntimeEnv {
  return {
    clock: systemClock,
    newId: () => globalThis.crypto.randomUUID(),
    ownerId: `owner:${globalThis.crypto.randomUUID()}`,
    warn: (message, details) => console.warn(`[flow] ${message}`, details ?? ""),
    yieldToHost: macrotask,
    claimHeartbeatMs: 5000,
    claimStaleMs: 30000,
    defaultLogDir: null,
    ...overrides,
  };
}
