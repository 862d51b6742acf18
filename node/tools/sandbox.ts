/**
 * @module node/tools/sandbox
 * The sandbox of the built-in tools (SPEC.md "Tools": "sandboxed to `rootDir`, symlink escapes
 * rejected"; docs/tools.md "Sandbox"). A path is accepted when both its spelling and the real
 * location it leads to (every symlink on the way followed, dangling ones included) are inside
 * the real `rootDir`. The file tools then open what was resolved without following links
 * (sandbox-file.ts), so a directory swapped for a symlink in between is refused, not followed.
 */
import { lstat, readlink, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { FlowError } from "../../core/errors.js";
import { fileError } from "./file-errors.js";

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
  const root = await realSandboxRoot(req);
  assertPathLength(req);
  const spelled = isAbsolute(req.path) ? resolve(req.path) : resolve(root, req.path);
  if (!isInside(root, spelled) && !isInside(resolve(req.rootDir), spelled)) throw outside(req, spelled);
  const real = await realLocation(spelled, req, root, 0).catch((error: unknown) => {
    throw fileError(req, error);
  });
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

/** The real (symlink-free) `rootDir`, or TOOL_FILE_NOT_FOUND. */
export async function realSandboxRoot(req: SandboxRequest): Promise<string> {
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
    const info = await lstat(existing).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw fileError(req, error);
    });
    if (info?.isSymbolicLink()) {
      const target = await realpath(existing).catch(() => undefined);
      if (target === undefined) {
        // Dangling: follow the link by hand, then append what was missing below it.
        const link = await readlink(existing).catch((error: NodeJS.ErrnoException) => {
          // EINVAL: no longer a symlink, so it was swapped while being resolved.
          if (error.code === "EINVAL") throw sandboxPathError(req, existing, "changed while it was being resolved");
          throw error;
        });
        const next = resolve(dirname(existing), link);
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
  return sandboxPathError(req, resolved);
}

/** TOOL_PATH_OUTSIDE_ROOT for `req`; `why` replaces "leads outside the sandbox root". */
export function sandboxPathError(req: SandboxRequest, resolved: string, why?: string): FlowError {
  return new FlowError(
    "TOOL_PATH_OUTSIDE_ROOT",
    why
      ? `Tool "${req.toolName}": "${req.path}" ${why} (at ${resolved}); it was refused so nothing outside the sandbox root ${req.rootDir} is touched. Try again, and keep symlinks out of the way.`
      : `Tool "${req.toolName}": "${req.path}" leads outside the sandbox root ${req.rootDir} (to ${resolved}). Use a path inside rootDir.`,
    { toolName: req.toolName, path: req.path, rootDir: req.rootDir },
  );
}

/** Linux limits (NAME_MAX 255, PATH_MAX 4096 with its NUL): a Flow code instead of a raw ENAMETOOLONG. */
function assertPathLength(req: SandboxRequest): void {
  const encoder = new TextEncoder();
  const tooLong = encoder.encode(req.path).byteLength > 4095 || req.path.split(/[\\/]/).some((part) => encoder.encode(part).byteLength > 255);
  if (tooLong) throw fileError(req, Object.assign(new Error("ENAMETOOLONG"), { code: "ENAMETOOLONG" }));
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
