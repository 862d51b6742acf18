/**
 * @module node/workspace/paths
 * Where workspaces live and what their branches are called (docs/workspaces.md):
 * `<rootDir>/.flow/worktrees/<runId>/<id>` on branch `flow/<runId>/<id>`, and
 * `<rootDir>/.flow/sandboxes/<runId>/<id>`. Run and workspace ids become path segments, so
 * they are checked here: an id cannot reach outside its run's directory.
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { WorkspaceSpec } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";

/** The directory under `<rootDir>/.flow` holding each kind's workspaces, one folder per run. */
export const WORKSPACE_DIRS = { worktree: "worktrees", sandbox: "sandboxes" } as const;

/** `<rootDir>/.flow/<worktrees|sandboxes>/<runId>`. */
export function runWorkspaceDir(rootDir: string, kind: WorkspaceSpec["kind"], runId: string): string {
  assertSegment(runId, "runId", { runId });
  return join(resolve(rootDir), ".flow", WORKSPACE_DIRS[kind], runId);
}

/** The directory of a workspace: `spec.path` (relative to rootDir) or the default. */
export function workspacePath(spec: WorkspaceSpec): string {
  assertSegment(spec.id, `${spec.kind} id`, { runId: spec.runId, id: spec.id });
  const base = runWorkspaceDir(spec.rootDir, spec.kind, spec.runId);
  if (spec.path !== undefined && spec.path !== "") return isAbsolute(spec.path) ? resolve(spec.path) : resolve(spec.rootDir, spec.path);
  return join(base, spec.id);
}

/**
 * The default branch of a worktree, `flow/<runId>/<id>`, with characters git refuses in ref
 * names replaced by `-` (ids are free text; a branch name is not).
 */
export function defaultBranch(runId: string, id: string): string {
  return `${runBranchPrefix(runId)}${refSafe(id)}`;
}

/** `flow/<runId>/`: the prefix of every default branch of a run. */
export function runBranchPrefix(runId: string): string {
  return `flow/${refSafe(runId)}/`;
}

function refSafe(s: string): string {
  const clean = s
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, "-")
    .replace(/^[.-]+|\.+$/g, "")
    .replace(/\.lock$/, "-lock");
  return clean || "x";
}

/** The canonical form of a path, for comparing what git prints with what we computed. */
export function samePath(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

/** The real path of `p` when it exists (symlinks resolved), else its absolute form. */
export function canonical(p: string): string {
  const abs = resolve(p);
  try {
    return existsSync(abs) ? realpathSync.native(abs) : abs;
  } catch {
    return abs;
  }
}

function assertSegment(value: string, name: string, details: Record<string, unknown>): void {
  if (typeof value !== "string" || value === "" || value === "." || value === ".." || /[/\\\0]/.test(value)) {
    throw new FlowError("INVALID_ARGUMENT", `A workspace ${name} must be a non-empty name without "/", "\\" or "..", got ${JSON.stringify(value)}.`, details);
  }
}
