/**
 * @module node/vcs/excludes-file
 * Where git's `core.excludesFile` is. Only git knows for sure (your configuration files, their
 * includes, `-c` and `GIT_CONFIG_*` variables). Where git is asked where a workspace's repository
 * is, it is asked this too (`EXCLUDES_FILE_QUESTION`), before the watch is set up. Where Node
 * found the repository (`prepare`), the watch is set up before git runs: `prepare`'s script asks
 * beside its first `add`, and the answer is kept beside the private indexes
 * (`.git/flow/excludes-file`). The next process's watch then leaves out, from its start, the
 * directories that file excludes; when git's answer differs from the one kept, the watch looks
 * again and vouches for nothing before (node/vcs/git.ts).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** What git is asked (by `locate`, and by `prepare`'s script): the setting's value, `~` expanded; nothing where it is unset. */
export const EXCLUDES_FILE_QUESTION = ["config", "--path", "--get", "core.excludesFile"];

/**
 * The file git reads for `core.excludesFile`, from `value` (the question's answer, "" where it is
 * unset: git's default, `$XDG_CONFIG_HOME/git/ignore` or `$HOME/.config/git/ignore`); a relative
 * value is relative to the work tree's top, where git runs. Undefined where there is none.
 * @example
 * excludesFileOf("", "/repo", { HOME: "/home/me" }); // "/home/me/.config/git/ignore"
 * excludesFileOf("/home/me/.gitignore_global\n", "/repo"); // "/home/me/.gitignore_global"
 */
export function excludesFileOf(value: string, top: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = value.replace(/\n$/, "");
  if (set) return resolve(top, set);
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "git", "ignore");
  return env.HOME ? join(env.HOME, ".config", "git", "ignore") : undefined;
}

/** Where the answer is kept for the repository whose git directory is `gitDir`. */
const keptIn = (gitDir: string) => join(gitDir, "flow", "excludes-file");

/**
 * The file an earlier process's git named ("": none), or undefined where no process asked yet.
 * @example
 * keptExcludesFile("/repo/.git"); // "/home/me/.gitignore_global"
 */
export function keptExcludesFile(gitDir: string): string | undefined {
  try {
    return readFileSync(keptIn(gitDir), "utf8");
  } catch {
    return undefined;
  }
}

/** Keeps git's answer for the next process; where `.git` cannot be written, the next one asks again. */
export function keepExcludesFile(gitDir: string, file: string | undefined): void {
  try {
    mkdirSync(join(gitDir, "flow"), { recursive: true });
    // Written aside and renamed: a process starting meanwhile reads the old answer or the new, never half of one.
    const temp = `${keptIn(gitDir)}.${process.pid}`;
    writeFileSync(temp, file ?? "");
    renameSync(temp, keptIn(gitDir));
  } catch {
    // not kept: the next process watches what it excludes until git answers
  }
}
