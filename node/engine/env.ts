/**
 * @module node/engine/env
 * The Node runtime env: claim owner ids that name the host and pid (so a run whose process
 * died on this machine is taken over at once instead of after the stale-heartbeat delay),
 * NDJSON run logs, workflow file hashes, git worktrees and sandboxes for `<Worktree>` /
 * `<Sandbox>` (docs/workspaces.md), hot reload of workflow files (docs/hot-reload.md), and git
 * snapshots of the run's workspace for time travel (docs/time-travel.md; `FLOW_SNAPSHOTS=off`
 * stops them), the async context that binds a task code's tool calls to its attempt
 * (docs/tools.md), and OTLP tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (docs/tracing.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createDefaultEnv, type RuntimeEnv } from "../../core/engine/index.js";
import { type CurrentAttempt, installAttemptContext } from "../../core/tools/index.js";
import { createNodeHotReload } from "../hot/index.js";
import { openFileRunLog } from "./run-log.js";
import { processVcs } from "../vcs/index.js";
import { createNodeWorkspaces } from "../workspace/index.js";
import { otlpTracingFromEnv } from "../tracing/index.js";
import { pidAlive } from "../pid-alive.js";

const HOST = hostname();

/** The attempt a task's code runs in, for the tools it calls (core/tools/current-attempt.ts). */
const attemptContext = installAttemptContext(new AsyncLocalStorage<CurrentAttempt>());

let warningSink: RuntimeEnv["warn"] | undefined;

/**
 * Sends the warnings of this process's Node envs (created before or after the call) to `sink`
 * instead of `process.emitWarning`: the `flow` CLI prints them as its own lines, once. Returns
 * the function that restores the default.
 * @example
 * const restore = routeWarnings((message) => process.stderr.write(`! ${message}\n`));
 */
export function routeWarnings(sink: RuntimeEnv["warn"]): () => void {
  warningSink = sink;
  return () => {
    if (warningSink === sink) warningSink = undefined;
  };
}

/** The env of this Node process. */
export function createNodeEnv(overrides: Partial<RuntimeEnv> = {}): RuntimeEnv {
  const env: RuntimeEnv = createDefaultEnv({
    ownerId: `${HOST}:${process.pid}:${globalThis.crypto.randomUUID().slice(0, 8)}`,
    isOwnerAlive,
    openRunLog: (logDir, runId) => openFileRunLog(logDir, runId, (message, details) => env.warn(message, details)),
    directoryExists: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true,
    hashWorkflowFile(path) {
      try {
        return createHash("sha256").update(readFileSync(path)).digest("hex");
      } catch {
        return undefined;
      }
    },
    workspaces: createNodeWorkspaces(),
    hotReload: createNodeHotReload(),
    vcs: processVcs(),
    recordSnapshots: snapshotsOn(),
    cwd: process.cwd(),
    attemptContext,
    tracing: () => otlpTracingFromEnv(),
    yieldToHost: () => new Promise<void>((resolve) => setImmediate(resolve)),
    warn: (message, details) => (warningSink ? warningSink(message, details) : process.emitWarning(message, { code: "FLOW_WARNING", detail: details ? JSON.stringify(details) : undefined })),
    ...overrides,
  });
  return env;
}

/** Whether this process snapshots runs' workspaces (`FLOW_SNAPSHOTS=off` stops it). */
function snapshotsOn(): boolean {
  return !/^(off|0|false|no)$/i.test(process.env.FLOW_SNAPSHOTS ?? "");
}

/**
 * Starts the first snapshot of `dir` now, where runs of this process will snapshot it: the `flow`
 * CLI calls it before it loads the workflow file, so git reads the tree meanwhile and the run's
 * first attempt finds it taken. Nothing where snapshots are off.
 * @example
 * prepareSnapshots(process.cwd());
 */
export function prepareSnapshots(dir: string): void {
  if (snapshotsOn()) processVcs().prepare?.(dir);
}

/** `false` when the owner ran on this host and its pid is gone; `undefined` when unknown. */
export function isOwnerAlive(ownerId: string): boolean | undefined {
  const [host, pid] = ownerId.split(":");
  if (host !== HOST || !pid || !/^\d+$/.test(pid)) return undefined;
  return Number(pid) === process.pid || pidAlive(Number(pid));
}
