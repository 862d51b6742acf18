/**
 * @module node/workspace/git
 * Running the `git` binary for worktrees: one helper that turns a failed command into a
 * `WORKSPACE_FAILED` FlowError naming the command, its exit code and its stderr, and the parser
 * of `git worktree list --porcelain`. See docs/workspaces.md.
 */
import { execFile } from "node:child_process";
import { FlowError } from "../../core/errors.js";

/** What a git command printed. */
export interface GitOutput {
  stdout: string;
  stderr: string;
}

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  /** Short branch name (`refs/heads/` stripped); undefined for a detached or bare worktree. */
  branch?: string;
  /** Git marks a worktree whose directory is gone as prunable. */
  prunable: boolean;
  /** The lock reason when the worktree is locked (`initializing` while `git worktree add` runs). */
  locked?: string;
}

/**
 * Runs `git <args>` in `cwd`. A non-zero exit (or git missing) throws WORKSPACE_FAILED with
 * `details.command` and `details.stderr`; `what` says what Flow was doing, for the message.
 */
export function git(args: string[], cwd: string, what: string, details: Record<string, unknown> = {}): Promise<GitOutput> {
  const command = `git ${args.join(" ")}`;
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      // LC_ALL=C: stable English messages; no prompt can block a run waiting for a terminal.
      { cwd, env: { ...process.env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ stdout, stderr });
        const code = (error as NodeJS.ErrnoException).code;
        const text = String(stderr).trim() || error.message;
        const why = code === "ENOENT" ? "the git executable is not on PATH" : text;
        reject(
          new FlowError("WORKSPACE_FAILED", `Could not ${what}: \`${command}\` in ${cwd} failed: ${why}`, { ...details, command, cwd, exitCode: typeof code === "number" ? code : null, stderr: text }, { cause: error }),
        );
      },
    );
  });
}

/** Parses `git worktree list --porcelain` (entries are separated by blank lines). */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    let entry: WorktreeEntry | undefined;
    for (const line of block.split("\n")) {
      if (line.startsWith("worktree ")) entry = { path: line.slice("worktree ".length), prunable: false };
      else if (entry && line.startsWith("branch ")) entry.branch = line.slice("branch ".length).replace(/^refs\/heads\//, "");
      else if (entry && (line === "prunable" || line.startsWith("prunable "))) entry.prunable = true;
      else if (entry && (line === "locked" || line.startsWith("locked "))) entry.locked = line.slice("locked".length).trim();
    }
    if (entry) entries.push(entry);
  }
  return entries;
}
