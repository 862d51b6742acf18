/**
 * @module node/engine/env
 * The Node runtime env: claim owner ids that name the host and pid (so a run whose process
 * died on this machine is taken over at once instead of after the stale-heartbeat delay),
 * NDJSON run logs, workflow file hashes, git worktrees and sandboxes for `<Worktree>` /
 * `<Sandbox>` (docs/workspaces.md), and hot reload of workflow files (docs/hot-reload.md).
 */
import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createDefaultEnv, type RuntimeEnv } from "../../core/engine/world.js";
import { createNodeHotReload } from "../hot/index.js";
import { createNodeWorkspaces } from "../workspace/index.js";

const HOST = hostname();

/** The env of this Node process. */
export function createNodeEnv(overrides: Partial<RuntimeEnv> = {}): RuntimeEnv {
  return createDefaultEnv({
    ownerId: `${HOST}:${process.pid}:${globalThis.crypto.randomUUID().slice(0, 8)}`,
    isOwnerAlive,
    openRunLog(logDir, runId) {
      mkdirSync(logDir, { recursive: true });
      const stream = createWriteStream(join(logDir, `${runId}.ndjson`), { flags: "a" });
      return {
        write: (line) => void stream.write(`${line}\n`),
        close: () => new Promise<void>((resolve) => stream.end(resolve)),
      };
    },
    hashWorkflowFile(path) {
      try {
        return createHash("sha256").update(readFileSync(path)).digest("hex");
      } catch {
        return undefined;
      }
    },
    workspaces: createNodeWorkspaces(),
    hotReload: createNodeHotReload(),
    cwd: process.cwd(),
    warn: (message, details) => process.emitWarning(message, { code: "FLOW_WARNING", detail: details ? JSON.stringify(details) : undefined }),
    ...overrides,
  });
}

/** `false` when the owner ran on this host and its pid is gone; `undefined` when unknown. */
export function isOwnerAlive(ownerId: string): boolean | undefined {
  const [host, pid] = ownerId.split(":");
  if (host !== HOST || !pid || !/^\d+$/.test(pid)) return undefined;
  if (Number(pid) === process.pid) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
