/**
 * @module node/tools/sandbox
 * The sandbox of the built-in tools (SPEC.md "Tools": "sandboxed to `rootDir`, symlink escapes
 * rejected"; docs/tools.md "Sandbox"). A path is accepted when both its spelling and the real
 * location it leads to (every symlink on the way followed, dangling ones included) are inside
 * the real `rootDir`. The check runs just before the file operation; it is not atomic against
 * a concurrent process that swaps a directory for a symlink in between.
 */
import { lstat, readlink, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { FlowError } from "../../core/errors.js";

/** Symlink hops followed before a path is declared a loop (as the kernel's ELOOP). */
const MAX_LINK_HOPS = 40;

/** What a tool wants to do with a sandboxed path. */
export interface SandboxRequest {
  toolName: string;
  rootDir: string;
  /** As the model gave it: relative to `rootDir`, or absolute inside it. */
  path: string;
  /** Fail with TOOL_FILE_NOT_FOUND when nothing is there. */
  mustExist?: boolean;
}

/** Resolves `path` inside the sandbox to its real absolute location, or throws. */
export async function resolveSandboxPath(req: SandboxRequest): Promise<string> {
  const root = await realRoot(req);
  const spelled = isAbsolute(req.path) ? resolve(req.path) : resolve(root, req.path);
  if (!isInside(root, spelled) && !isInside(resolve(req.rootDir), spelled)) throw outside(req, spelled);
  const real = await realLocation(spelled, req, root, 0);
  if (req.mustExist && !(await exists(real))) {
    throw new FlowError("TOOL_FILE_NOT_FOUND", `Tool "${req.toolName}": "${req.path}" does not exist under ${root}.`, { toolName: req.toolName, path: req.path });
  }
  return real;
}

/** Resolves a directory inside the sandbox (bash `opts.cwd`). */
export async function resolveSandboxDir(req: SandboxRequest): Promise<string> {
  const dir = await resolveSandboxPath({ ...req, mustExist: true });
  if (!(await stat(dir)).isDirectory()) {
    throw new FlowError("TOOL_INPUT_INVALID", `Tool "${req.toolName}": "${req.path}" is not a directory.`, { toolName: req.toolName, path: req.path });
  }
  return dir;
}

async function realRoot(req: SandboxRequest): Promise<string> {
  try {
    return await realpath(req.rootDir);
  } catch {
    throw new FlowError("TOOL_FILE_NOT_FOUND", `Tool "${req.toolName}": the sandbox rootDir ${req.rootDir} does not exist. Create it or pass an existing rootDir.`, { toolName: req.toolName, rootDir: req.rootDir });
  }
}

/**
 * The real location of `path`: the longest existing prefix resolved with realpath, plus the
 * missing rest. A dangling symlink is followed to where a write would create its target.
 */
async function realLocation(path: string, req: SandboxRequest, root: string, hops: number): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new FlowError("TOOL_INPUT_INVALID", `Tool "${req.toolName}": "${req.path}" has a symlink loop.`, { toolName: req.toolName, path: req.path });
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    const info = await lstat(existing).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      const target = await realpath(existing).catch(() => undefined);
      if (target === undefined) {
        // Dangling: follow the link by hand, then append what was missing below it.
        const next = resolve(dirname(existing), await readlink(existing));
        return realLocation(join(next, ...missing), req, root, hops + 1);
      }
      return checked(join(target, ...missing), req, root);
    }
    if (info) return checked(join(await realpath(existing), ...missing), req, root);
    const parent = dirname(existing);
    if (parent === existing) return checked(path, req, root);
    missing.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
}

function checked(real: string, req: SandboxRequest, root: string): string {
  if (!isInside(root, real)) throw outside(req, real);
  return real;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function outside(req: SandboxRequest, resolved: string): FlowError {
  return new FlowError(
    "TOOL_PATH_OUTSIDE_ROOT",
    `Tool "${req.toolName}": "${req.path}" leads outside the sandbox root ${req.rootDir} (to ${resolved}). Use a path inside rootDir.`,
    { toolName: req.toolName, path: req.path, rootDir: req.rootDir },
  );
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
