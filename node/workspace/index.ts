/**
 * @module node/workspace
 * The Node `WorkspacePort` (core/engine/workspace-port.ts): git worktrees for `<Worktree>`
 * and seeded directories for `<Sandbox>`, plus removing what a run left behind.
 * See docs/workspaces.md.
 */
import { resolve } from "node:path";
import type { PreparedWorkspace, WorkspacePort, WorkspaceSpec } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import { prepareSandbox, removeRunSandboxes } from "./sandbox.js";
import { type RemoveWorktreesOptions, prepareWorktree, removeRunWorktrees } from "./worktree.js";

export { prepareSandbox, removeRunSandboxes } from "./sandbox.js";
export { prepareWorktree, removeRunWorktrees } from "./worktree.js";
export type { RemovedWorktrees, RemoveWorktreesOptions } from "./worktree.js";

/**
 * The workspace port of a Node process. Calls for the same workspace that overlap (two tasks
 * of one subtree starting together) share one preparation.
 * @example
 * const env = createNodeEnv({ workspaces: createNodeWorkspaces() }); // createNodeEnv includes it already
 * const { path, branch } = await env.workspaces!.prepare({ kind: "worktree", runId, id: "fix", rootDir: process.cwd() });
 */
export function createNodeWorkspaces(): WorkspacePort {
  const inFlight = new Map<string, Promise<PreparedWorkspace>>();
  return {
    prepare(spec: WorkspaceSpec) {
      const key = JSON.stringify([spec.kind, resolve(spec.rootDir), spec.runId, spec.id, spec.path ?? null]);
      const running = inFlight.get(key);
      if (running) return running;
      const prepared = prepareKind(spec).finally(() => inFlight.delete(key));
      inFlight.set(key, prepared);
      return prepared;
    },
  };
}

function prepareKind(spec: WorkspaceSpec): Promise<PreparedWorkspace> {
  if (spec.kind === "worktree") return prepareWorktree(spec);
  if (spec.kind === "sandbox") return prepareSandbox(spec);
  return Promise.reject(new FlowError("INVALID_ARGUMENT", `Unknown workspace kind ${JSON.stringify((spec as { kind: unknown }).kind)}; expected "worktree" or "sandbox".`, { runId: spec.runId, id: spec.id }));
}

/** What `removeRunWorkspaces` removed. */
export interface RemovedWorkspaces {
  worktrees: string[];
  branches: string[];
  sandboxes: string[];
}

/**
 * Removes everything a run's workspaces left under rootDir: its git worktrees (branches too
 * with `deleteBranches`) and its sandboxes. Call it when the run is finished and its work
 * merged; a run that still needs them would recreate empty ones.
 * @example
 * const removed = await removeRunWorkspaces(process.cwd(), runId, { deleteBranches: true });
 * console.log(removed.worktrees, removed.branches, removed.sandboxes);
 */
export async function removeRunWorkspaces(rootDir: string, runId: string, opts: RemoveWorktreesOptions = {}): Promise<RemovedWorkspaces> {
  const { worktrees, branches } = await removeRunWorktrees(rootDir, runId, opts);
  return { worktrees, branches, sandboxes: removeRunSandboxes(rootDir, runId) };
}
