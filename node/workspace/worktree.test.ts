import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeWorkspaces, isFlowError, removeRunWorkspaces, type WorkspaceSpec } from "durable-flow";
import { gitRepo, sh, tempDir, writeFiles } from "./testing.js";

const worktree = (rootDir: string, extra: Partial<WorkspaceSpec> = {}): WorkspaceSpec => ({ kind: "worktree", runId: "run-1", id: "fix", rootDir, ...extra });

describe("worktree workspaces", () => {
  it("adds a worktree on a new flow/<runId>/<id> branch from HEAD at the default path", async () => {
    const repo = gitRepo({ "src/app.ts": "export const v = 1;\n" });
    const head = sh(repo, "rev-parse", "HEAD");
    const ws = await createNodeWorkspaces().prepare(worktree(repo));
    expect(ws).toEqual({ path: join(repo, ".flow", "worktrees", "run-1", "fix"), branch: "flow/run-1/fix" });
    expect(readFileSync(join(ws.path, "src/app.ts"), "utf8")).toBe("export const v = 1;\n");
    expect(sh(ws.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe("flow/run-1/fix");
    expect(sh(ws.path, "rev-parse", "HEAD")).toBe(head);
    expect(sh(repo, "worktree", "list", "--porcelain")).toContain(`worktree ${ws.path}`);
    // The main worktree is untouched: still on main, clean.
    expect(sh(repo, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(sh(repo, "status", "--porcelain")).toBe("");
  });

  it("reuses the worktree with its work after a crash instead of recreating or resetting it", async () => {
    const repo = gitRepo();
    const first = await createNodeWorkspaces().prepare(worktree(repo));
    writeFileSync(join(first.path, "done.txt"), "step 1\n");
    sh(first.path, "add", "done.txt");
    sh(first.path, "commit", "-q", "-m", "step 1");
    const tip = sh(first.path, "rev-parse", "HEAD");
    writeFileSync(join(first.path, "wip.txt"), "uncommitted\n");

    // A new process (new port) resumes the run and prepares the same workspace again.
    const again = await createNodeWorkspaces().prepare(worktree(repo, { baseBranch: "main" }));
    expect(again).toEqual(first);
    expect(sh(again.path, "rev-parse", "HEAD")).toBe(tip);
    expect(readFileSync(join(again.path, "wip.txt"), "utf8")).toBe("uncommitted\n");
    expect(sh(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(2);
  });

  it("recreates a worktree whose directory was deleted, on the existing branch with its commits", async () => {
    const repo = gitRepo();
    const ws = await createNodeWorkspaces().prepare(worktree(repo));
    writeFiles(ws.path, { "kept.txt": "committed\n" });
    sh(ws.path, "add", "kept.txt");
    sh(ws.path, "commit", "-q", "-m", "kept");
    rmSync(ws.path, { recursive: true, force: true });
    const again = await createNodeWorkspaces().prepare(worktree(repo));
    expect(again.path).toBe(ws.path);
    expect(readFileSync(join(again.path, "kept.txt"), "utf8")).toBe("committed\n");
  });

  it("redoes a worktree left half-created by a crash inside git worktree add", async () => {
    const repo = gitRepo({ "a.txt": "a\n", "b.txt": "b\n" });
    const ws = await createNodeWorkspaces().prepare(worktree(repo));
    // What a crash mid-checkout leaves: the registration locked "initializing", files missing.
    sh(repo, "worktree", "lock", "--reason", "initializing", ws.path);
    rmSync(join(ws.path, "b.txt"));
    const again = await createNodeWorkspaces().prepare(worktree(repo));
    expect(readFileSync(join(again.path, "b.txt"), "utf8")).toBe("b\n");
    expect(sh(repo, "worktree", "list", "--porcelain")).not.toContain("locked");
  });

  it("starts a new branch from baseBranch, and honours a custom path and branch", async () => {
    const repo = gitRepo({ "version.txt": "1\n" });
    sh(repo, "checkout", "-q", "-b", "release");
    writeFiles(repo, { "version.txt": "2\n" });
    sh(repo, "commit", "-q", "-am", "release 2");
    const releaseTip = sh(repo, "rev-parse", "HEAD");
    sh(repo, "checkout", "-q", "main");

    const ws = await createNodeWorkspaces().prepare(worktree(repo, { id: "hotfix", baseBranch: "release", branch: "hotfix/2.0.1", path: "../wt-hotfix" }));
    expect(ws).toEqual({ path: join(repo, "..", "wt-hotfix"), branch: "hotfix/2.0.1" });
    expect(readFileSync(join(ws.path, "version.txt"), "utf8")).toBe("2\n");
    expect(sh(ws.path, "rev-parse", "HEAD")).toBe(releaseTip);
    expect(sh(repo, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    await removeRunWorkspaces(repo, "run-1", { deleteBranches: false });
    rmSync(ws.path, { recursive: true, force: true });
  });

  it("checks out an existing branch as it is, without resetting it to baseBranch", async () => {
    const repo = gitRepo();
    sh(repo, "branch", "flow/run-1/fix");
    sh(repo, "checkout", "-q", "flow/run-1/fix");
    writeFiles(repo, { "branch-only.txt": "x\n" });
    sh(repo, "add", "branch-only.txt");
    sh(repo, "commit", "-q", "-m", "on the branch");
    sh(repo, "checkout", "-q", "main");
    const ws = await createNodeWorkspaces().prepare(worktree(repo, { baseBranch: "main" }));
    expect(existsSync(join(ws.path, "branch-only.txt"))).toBe(true);
  });

  it("fails with WORKSPACE_FAILED naming the git command and its stderr when rootDir is not a repository", async () => {
    const dir = tempDir();
    const error = await createNodeWorkspaces()
      .prepare(worktree(dir))
      .catch((e: unknown) => e);
    expect(isFlowError(error, "WORKSPACE_FAILED")).toBe(true);
    expect(error).toMatchObject({
      message: expect.stringContaining("inside a git repository"),
      details: { command: "git rev-parse --path-format=absolute --git-common-dir", stderr: expect.stringContaining("not a git repository"), runId: "run-1", id: "fix" },
    });
    expect(existsSync(join(dir, ".flow"))).toBe(false);
  });

  it("fails with WORKSPACE_FAILED and git's stderr when baseBranch does not exist", async () => {
    const repo = gitRepo();
    await expect(createNodeWorkspaces().prepare(worktree(repo, { baseBranch: "no-such-branch" }))).rejects.toMatchObject({
      code: "WORKSPACE_FAILED",
      message: expect.stringContaining("git worktree add -b flow/run-1/fix"),
      details: { stderr: expect.stringContaining("no-such-branch") },
    });
  });

  it("refuses a path that holds a worktree of another branch, or a directory that is not a worktree", async () => {
    const repo = gitRepo();
    const ws = await createNodeWorkspaces().prepare(worktree(repo));
    await expect(createNodeWorkspaces().prepare(worktree(repo, { branch: "other" }))).rejects.toMatchObject({
      code: "WORKSPACE_FAILED",
      details: { existingBranch: "flow/run-1/fix", path: ws.path },
    });
    writeFiles(repo, { ".flow/worktrees/run-1/stray/file.txt": "x" });
    await expect(createNodeWorkspaces().prepare(worktree(repo, { id: "stray" }))).rejects.toMatchObject({ code: "WORKSPACE_FAILED", message: expect.stringContaining("not a git worktree") });
    await expect(createNodeWorkspaces().prepare(worktree(repo, { id: "../escape" }))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("shares one preparation between overlapping calls for the same worktree, and adds different ones side by side", async () => {
    const repo = gitRepo();
    const port = createNodeWorkspaces();
    const ids = Array.from({ length: 12 }, (_, i) => `w${i}`);
    // Two ports: like two runs in one process; git's worktree admin files allow one add at a time.
    const [a, b, ...others] = await Promise.all([
      port.prepare(worktree(repo)),
      port.prepare(worktree(repo)),
      ...ids.map((id, i) => (i % 2 ? port : createNodeWorkspaces()).prepare(worktree(repo, { id }))),
    ]);
    expect(a).toEqual(b);
    expect(others.map((w) => w.branch)).toEqual(ids.map((id) => `flow/run-1/${id}`));
    expect(sh(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(2 + ids.length);
  });

  it("turns free-text ids into valid default branch names", async () => {
    const repo = gitRepo();
    const ws = await createNodeWorkspaces().prepare(worktree(repo, { runId: "run 7", id: "fix: the bug.lock" }));
    expect(ws.branch).toBe("flow/run-7/fix-the-bug-lock");
    expect(sh(ws.path, "rev-parse", "--abbrev-ref", "HEAD")).toBe(ws.branch);
  });

  it("removes a run's worktrees, sandboxes and (when asked) branches, and leaves other runs alone", async () => {
    const repo = gitRepo();
    const port = createNodeWorkspaces();
    const a = await port.prepare(worktree(repo));
    const b = await port.prepare(worktree(repo, { id: "docs" }));
    const sandbox = await port.prepare({ kind: "sandbox", runId: "run-1", id: "scratch", rootDir: repo });
    const other = await port.prepare(worktree(repo, { runId: "run-2" }));
    writeFileSync(join(a.path, "dirty.txt"), "uncommitted\n");

    const removed = await removeRunWorkspaces(repo, "run-1", { deleteBranches: true });
    expect(removed.worktrees.sort()).toEqual([a.path, b.path].sort());
    expect(removed.branches.sort()).toEqual(["flow/run-1/docs", "flow/run-1/fix"]);
    expect(removed.sandboxes).toEqual([sandbox.path]);
    expect(existsSync(join(repo, ".flow", "worktrees", "run-1"))).toBe(false);
    expect(existsSync(join(repo, ".flow", "sandboxes", "run-1"))).toBe(false);
    expect(sh(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/flow/")).toBe("flow/run-2/fix");
    expect(existsSync(other.path)).toBe(true);
    expect(sh(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(2);
    // Nothing left to remove is not an error.
    expect(await removeRunWorkspaces(repo, "run-1")).toEqual({ worktrees: [], branches: [], sandboxes: [] });
  });

  it("fails to remove a dirty worktree with force false, and removes nothing outside a repository", async () => {
    const repo = gitRepo();
    const ws = await createNodeWorkspaces().prepare(worktree(repo));
    writeFileSync(join(ws.path, "README.md"), "changed\n");
    await expect(removeRunWorkspaces(repo, "run-1", { force: false })).rejects.toMatchObject({ code: "WORKSPACE_FAILED", details: { command: expect.stringContaining("git worktree remove") } });
    expect(existsSync(ws.path)).toBe(true);
    expect(await removeRunWorkspaces(tempDir(), "run-1")).toEqual({ worktrees: [], branches: [], sandboxes: [] });
  });
});
