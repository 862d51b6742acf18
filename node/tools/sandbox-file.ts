/**
 * @module node/tools/sandbox-file
 * Opening and replacing files of the sandbox so that what is opened is checked, not only the
 * name (docs/tools.md "Sandbox"). `resolveSandboxPath` first finds the real location (every
 * symlink followed, all inside `rootDir`); then, on Linux, the location is walked again from an
 * open handle of the real `rootDir`, one component at a time, each opened with `O_NOFOLLOW`
 * through `/proc/self/fd/<dir>/<name>` (the kernel resolves that link to the directory the
 * handle holds, whatever now has its name; an `openat` for Node). A directory swapped for a
 * symlink in between fails that walk instead of leading outside. Elsewhere the walk uses full
 * paths, and the opened file's device and inode are compared with a fresh resolution.
 *
 * Only regular files are opened: FIFOs, sockets and devices are refused (TOOL_FILE_NOT_REGULAR)
 * before and after opening (`O_NONBLOCK`, so a FIFO cannot block the open). Writes never change
 * an existing inode: they write a temporary file in the same directory and rename it over the
 * target, so a hard link to a file outside `rootDir` is replaced, not written through.
 */
import { randomBytes } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileError, notRegular } from "./file-errors.js";
import { realSandboxRoot, resolveSandboxPath, sandboxPathError, type SandboxRequest } from "./sandbox.js";

/** `/proc/self/fd` lets a path start at an open directory (Linux); elsewhere full paths are used. */
const FD_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** A directory of the sandbox held open, and how to name an entry of it. */
export interface OpenDir {
  handle: FileHandle;
  /** Full path of the directory as resolved (for messages and the non-Linux walk). */
  path: string;
  /** A path naming the directory held open (`/proc/self/fd/<n>` on Linux), e.g. a process's cwd. */
  self: string;
  entry(name: string): string;
}

/**
 * Opens an existing regular file of the sandbox for reading. The caller closes the handle.
 * @example
 * const { handle, size } = await openSandboxedFile({ toolName: "read", rootDir, path: "a.txt" });
 */
export async function openSandboxedFile(req: SandboxRequest): Promise<{ handle: FileHandle; size: number }> {
  const real = await resolveSandboxPath({ ...req, mustExist: true });
  await refuseSpecial(req, real);
  const dir = await openSandboxDir(req, dirname(real), false);
  let handle: FileHandle;
  try {
    handle = await open(dir.entry(basename(real)), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    throw fileError(req, error);
  } finally {
    await dir.handle.close();
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(req, info.isDirectory() ? "a directory" : "not a regular file");
    if (!FD_PATHS) await assertSameFile(req, real, info);
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Creates or replaces a file of the sandbox with `content`: parent directories are created, a
 * temporary file is written beside the target and renamed over it (an existing file keeps its
 * mode). A path naming a directory or a special file is refused.
 * @example
 * await replaceSandboxedFile({ toolName: "write", rootDir, path: "notes/a.md" }, "# A\n");
 */
export async function replaceSandboxedFile(req: SandboxRequest, content: string): Promise<void> {
  const real = await resolveSandboxPath(req);
  const existing = await lstat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw fileError(req, error);
  });
  if (existing?.isDirectory()) throw notRegular(req, "a directory");
  if (existing && !existing.isFile()) throw notRegular(req, "not a regular file");
  const dir = await openSandboxDir(req, dirname(real), true);
  const name = basename(real);
  const temp = `.${name.slice(0, 180)}.flow-${randomBytes(6).toString("hex")}.tmp`;
  try {
    const file = await open(dir.entry(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, existing ? existing.mode & 0o7777 : 0o666);
    try {
      await file.writeFile(content, "utf8");
    } finally {
      await file.close();
    }
    await rename(dir.entry(temp), dir.entry(name));
  } catch (error) {
    await unlink(dir.entry(temp)).catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code === "EISDIR") throw notRegular(req, "a directory");
    throw fileError(req, error);
  } finally {
    await dir.handle.close();
  }
}

/** Opens `realDir` (inside the real root) by walking from the root; creates what is missing when asked. The caller closes it. */
export async function openSandboxDir(req: SandboxRequest, realDir: string, create: boolean): Promise<OpenDir> {
  const root = await realSandboxRoot(req);
  const rel = relative(root, realDir);
  if (rel.startsWith("..") || isAbsolute(rel)) throw sandboxPathError(req, realDir);
  const parts = rel === "" ? [] : rel.split(sep);
  let current = await openDir(root, root);
  try {
    for (const part of parts) {
      const next = current.entry(part);
      let opened: OpenDir;
      try {
        opened = await openDir(next, join(current.path, part));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || !create) throw error;
        await mkdir(next).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== "EEXIST") throw e;
        });
        opened = await openDir(next, join(current.path, part));
      }
      await current.handle.close();
      current = opened;
    }
    if (!FD_PATHS) await assertSameFile(req, realDir, await current.handle.stat());
    return current;
  } catch (error) {
    await current.handle.close();
    const code = (error as NodeJS.ErrnoException).code;
    // The resolved location has no symlinks; one there now was put there since (a swap).
    if (code === "ELOOP" || code === "ENOTDIR") throw sandboxPathError(req, realDir, "changed while it was being opened (a symlink appeared on the way)");
    throw fileError(req, error);
  }
}

async function openDir(path: string, shown: string): Promise<OpenDir> {
  const handle = await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  const self = FD_PATHS ? `/proc/self/fd/${handle.fd}` : shown;
  return { handle, path: shown, self, entry: (name) => join(self, name) };
}

/** Without `/proc/self/fd`: the handle must be the file a fresh resolution finds (inside the root). */
async function assertSameFile(req: SandboxRequest, real: string, info: { dev: number; ino: number }): Promise<void> {
  const again = await resolveSandboxPath(req).catch(() => undefined);
  const now = again === undefined ? undefined : await stat(again).catch(() => undefined);
  if (!now || now.dev !== info.dev || now.ino !== info.ino) throw sandboxPathError(req, real, "changed while it was being opened");
}

async function refuseSpecial(req: SandboxRequest, real: string): Promise<void> {
  const info = await lstat(real).catch((error) => {
    throw fileError(req, error);
  });
  if (info.isDirectory()) throw notRegular(req, "a directory");
  if (!info.isFile() && !info.isSymbolicLink()) throw notRegular(req, "not a regular file");
}
