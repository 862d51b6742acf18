/**
 * @module node/workspace/sandbox
 * `<Sandbox>` on Node: a directory `<rootDir>/.flow/sandboxes/<runId>/<id>`, seeded with a copy
 * of `from` (relative to rootDir) when given. The copy is made in a staging directory beside it
 * and renamed into place, so the sandbox directory exists only once it is complete; from then
 * on preparing returns it as is and never copies over the work done in it. See
 * docs/workspaces.md.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { copyFile, lstat, mkdir, readdir, readlink, symlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { PreparedWorkspace, WorkspaceSpec } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import { runWorkspaceDir, workspacePath } from "./paths.js";
import { pidAlive } from "../pid-alive.js";

const STAGING = ".partial-";

/**
 * Creates the sandbox of `spec` (kind `sandbox`), or returns it when it exists already.
 * @example
 * const { path } = await prepareSandbox({ kind: "sandbox", runId: "r1", id: "try", rootDir: "/proj", from: "template" });
 * // path: /proj/.flow/sandboxes/r1/try, holding a copy of /proj/template
 */
export async function prepareSandbox(spec: WorkspaceSpec): Promise<PreparedWorkspace> {
  const rootDir = resolve(spec.rootDir);
  const path = workspacePath(spec);
  if (existsSync(path)) return { path };
  const details = { runId: spec.runId, id: spec.id, rootDir, path, from: spec.from ?? null };
  const parent = dirname(path);
  mkdirSync(parent, { recursive: true });
  removeAbandonedStaging(parent, basename(path));
  const staging = `${path}${STAGING}${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    if (spec.from === undefined || spec.from === "") {
      mkdirSync(staging);
    } else {
      const source = resolve(rootDir, spec.from);
      if (!existsSync(source) || !statSync(source).isDirectory()) {
        throw new FlowError("WORKSPACE_FAILED", `Sandbox "${spec.id}" of run ${spec.runId}: from "${spec.from}" (${source}) is not a directory.`, { ...details, source });
      }
      // Flow's own state (the store, other sandboxes, worktrees) is never part of a seed.
      await copyTree(source, staging, new Set([join(rootDir, ".flow"), staging]));
    }
    renameSync(staging, path);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (existsSync(path)) return { path };
    if (error instanceof FlowError) throw error;
    throw new FlowError("WORKSPACE_FAILED", `Sandbox "${spec.id}" of run ${spec.runId}: could not create ${path}: ${(error as Error).message}`, details, { cause: error });
  }
  return { path };
}

/**
 * Removes the sandboxes of a run (`<rootDir>/.flow/sandboxes/<runId>`); returns their paths.
 * @example
 * await removeRunSandboxes("/proj", "r1"); // ["/proj/.flow/sandboxes/r1/try"]
 */
export function removeRunSandboxes(rootDir: string, runId: string): string[] {
  const dir = runWorkspaceDir(rootDir, "sandbox", runId);
  if (!existsSync(dir)) return [];
  const removed = readdirSync(dir)
    .filter((name) => !name.includes(STAGING))
    .map((name) => join(dir, name));
  rmSync(dir, { recursive: true, force: true });
  return removed;
}

/** Copies a directory tree; symlinks are copied as links (never followed), special files skipped. */
async function copyTree(from: string, to: string, skip: Set<string>): Promise<void> {
  await mkdir(to, { mode: (await lstat(from)).mode & 0o7777 });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (skip.has(source)) continue;
    const target = join(to, entry.name);
    if (entry.isDirectory()) await copyTree(source, target, skip);
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else if (entry.isFile()) await copyFile(source, target);
  }
}

/** Staging directories of copies whose process died (a crash mid-copy). */
function removeAbandonedStaging(parent: string, name: string): void {
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(`${name}${STAGING}`)) continue;
    const pid = Number(entry.slice(name.length + STAGING.length).split("-")[0]);
    if (pid !== process.pid && !pidAlive(pid)) rmSync(join(parent, entry), { recursive: true, force: true });
  }
}

