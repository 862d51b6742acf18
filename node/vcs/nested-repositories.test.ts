/**
 * Repositories inside a workspace (a repository an agent cloned into it, a submodule): git
 * records each as the commit its HEAD is at (a "gitlink"), never its files. A restore leaves
 * them as they are and says which, where it used to fail (`rm` of a directory) or keep quiet;
 * the port names them after a snapshot, so the engine can say so once.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGitVcs } from "./git.js";
import { gitIn, loggingGit, tempRepo, treePicture, userGitState } from "./testing.js";

/** A repository to clone, with one committed file. */
function library(): string {
  const lib = tempRepo();
  writeFileSync(join(lib, "lib.txt"), "lib v1\n");
  gitIn(lib, "add", "lib.txt");
  gitIn(lib, "commit", "-q", "-m", "lib");
  return lib;
}

/** Everything under `dir/sub`, its `.git` included. */
const pictureOf = (dir: string, sub: string) => treePicture(join(dir, sub));

describe("repositories inside a workspace", () => {
  it("restores around a repository cloned into the workspace, leaves it as it is (its .git and edits too), and names it", async () => {
    const repo = tempRepo();
    const vcs = createGitVcs();
    const before = await vcs.snapshot(repo, "refs/flow/runs/nested/0");
    expect(await vcs.repositoriesIn!(repo)).toEqual([]);

    // An agent clones a library into the workspace and writes a file of the workspace's own.
    mkdirSync(join(repo, "deps"));
    gitIn(repo, "clone", "-q", library(), "deps/lib");
    writeFileSync(join(repo, "a.txt"), "a1\n");
    const cloned = await vcs.snapshot(repo, "refs/flow/runs/nested/1");
    expect(await vcs.repositoriesIn!(repo)).toEqual(["deps/lib"]);
    expect(gitIn(repo, "ls-tree", cloned, "deps/lib").split(/\s+/).slice(0, 2)).toEqual(["160000", "commit"]);

    // Then edits it, and the workspace's file.
    writeFileSync(join(repo, "deps/lib/lib.txt"), "lib edited\n");
    writeFileSync(join(repo, "deps/lib/new.txt"), "new\n");
    writeFileSync(join(repo, "a.txt"), "a2\n");
    const library_ = pictureOf(repo, "deps/lib");
    const user = userGitState(repo);

    // A preview names what the restore will leave, and changes nothing.
    const tree = treePicture(repo);
    expect(await vcs.repositoriesKeptBy!(repo, before)).toEqual(["deps/lib"]);
    expect(treePicture(repo)).toEqual(tree);
    expect(userGitState(repo)).toEqual(user);

    // Back to before the clone: the workspace's own file goes, the clone stays whole.
    expect(await vcs.restore(repo, before)).toEqual({ changed: 0, deleted: 1, repositories: ["deps/lib"] });
    expect(Object.keys(treePicture(repo, (p) => p === "deps"))).toEqual([".gitignore", "README.md"]);
    expect(pictureOf(repo, "deps/lib")).toEqual(library_);
    expect(userGitState(repo)).toEqual(user);

    // Forward to after it: the workspace's file as it was then; the clone still as the agent left it.
    expect(await vcs.restore(repo, cloned)).toEqual({ changed: 1, deleted: 0, repositories: ["deps/lib"] });
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a1\n");
    expect(readFileSync(join(repo, "deps/lib/lib.txt"), "utf8")).toBe("lib edited\n");
    expect(pictureOf(repo, "deps/lib")).toEqual(library_);
  });

  it("gives git a changed repository's path, not the paths under it, and drops it once it is gone", async () => {
    const repo = tempRepo();
    const git = loggingGit();
    const vcs = createGitVcs({ gitPath: git.gitPath });
    await vcs.snapshot(repo, "refs/flow/runs/paths/0");
    gitIn(repo, "clone", "-q", library(), "deps/lib");
    await vcs.snapshot(repo, "refs/flow/runs/paths/1");

    // An edit in the clone and one of the workspace's files: one `add` (a path in the clone
    // given to git is an error, and then the whole workspace was added again).
    writeFileSync(join(repo, "deps/lib/lib.txt"), "lib edited\n");
    writeFileSync(join(repo, "a.txt"), "a\n");
    git.since();
    const edited = await vcs.snapshot(repo, "refs/flow/runs/paths/2");
    expect(git.since().filter((line) => line.startsWith("add "))).toHaveLength(1);
    expect(gitIn(repo, "ls-tree", "--name-only", "-r", edited).split("\n")).toEqual([".gitignore", "README.md", "a.txt", "deps/lib"]);

    rmSync(join(repo, "deps"), { recursive: true });
    const gone = await vcs.snapshot(repo, "refs/flow/runs/paths/3");
    expect(gitIn(repo, "ls-tree", "--name-only", "-r", gone).split("\n")).toEqual([".gitignore", "README.md", "a.txt"]);
    expect(await vcs.repositoriesIn!(repo)).toEqual([]);
  });

  it("records the commit a repository inside the workspace is at now, after a commit, a reset or a checkout there", async () => {
    const repo = tempRepo();
    gitIn(repo, "clone", "-q", library(), "deps/lib");
    const lib = join(repo, "deps/lib");
    const vcs = createGitVcs();
    const gitlinkOf = (pointer: string) => gitIn(repo, "ls-tree", pointer, "deps/lib").split(/\s+/)[2];
    const head = () => gitIn(lib, "rev-parse", "HEAD");
    const first = head();
    expect(gitlinkOf(await vcs.snapshot(repo, "refs/flow/runs/head/0"))).toBe(first);
    // Once its HEAD is watched, nothing changing costs nothing again.
    const steady = await vcs.snapshot(repo, "refs/flow/runs/head/1");
    expect(await vcs.unchangedSince!(repo, steady, { settle: true })).toBe(true);

    // A commit there writes nothing in the workspace's files: only the repository's HEAD moves.
    gitIn(lib, "commit", "-q", "--allow-empty", "-m", "moved");
    const moved = head();
    expect(moved).not.toBe(first);
    expect(await vcs.unchangedSince!(repo, steady, { settle: true })).toBe(false);
    expect(gitlinkOf(await vcs.snapshot(repo, "refs/flow/runs/head/2"))).toBe(moved);

    // Back with a reset that leaves its index and files alone (only HEAD's reflog is written).
    gitIn(lib, "reset", "-q", "--soft", first);
    expect(gitlinkOf(await vcs.snapshot(repo, "refs/flow/runs/head/3"))).toBe(first);

    // A checkout of another branch at the moved commit.
    gitIn(lib, "checkout", "-q", "-b", "other", moved);
    expect(gitlinkOf(await vcs.snapshot(repo, "refs/flow/runs/head/4"))).toBe(moved);
  });

  it("sees a submodule's HEAD move, kept in the outer repository's .git/modules, in a new process's first snapshots", async () => {
    const repo = tempRepo();
    gitIn(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library(), "sub");
    gitIn(repo, "commit", "-q", "-m", "sub");
    await createGitVcs().snapshot(repo, "refs/flow/runs/sub-head/0");

    // Another process: the submodule is known from the index it keeps, before git reads the tree.
    const vcs = createGitVcs();
    const before = await vcs.snapshot(repo, "refs/flow/runs/sub-head/1");
    gitIn(join(repo, "sub"), "commit", "-q", "--allow-empty", "-m", "moved");
    const after = await vcs.snapshot(repo, "refs/flow/runs/sub-head/2");
    expect(after).not.toBe(before);
    expect(gitIn(repo, "ls-tree", after, "sub").split(/\s+/)[2]).toBe(gitIn(join(repo, "sub"), "rev-parse", "HEAD"));
  });

  it("leaves a submodule as it is in a restore, and names it with the repositories the snapshot holds", async () => {
    const repo = tempRepo();
    gitIn(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library(), "sub");
    gitIn(repo, "commit", "-q", "-m", "sub");
    const vcs = createGitVcs();
    writeFileSync(join(repo, "README.md"), "# edited\n");
    const edited = await vcs.snapshot(repo, "refs/flow/runs/sub/0");
    expect(await vcs.repositoriesIn!(repo)).toEqual(["sub"]);

    // The submodule moves on (a commit there) and has an edit on top; the workspace's file too.
    writeFileSync(join(repo, "README.md"), "# again\n");
    writeFileSync(join(repo, "sub/lib.txt"), "committed in the submodule\n");
    gitIn(join(repo, "sub"), "commit", "-q", "-am", "moved");
    writeFileSync(join(repo, "sub/lib.txt"), "changed in the submodule\n");
    const submodule = pictureOf(repo, "sub");
    expect(await vcs.restore(repo, edited)).toEqual({ changed: 1, deleted: 0, repositories: ["sub"] });
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# edited\n");
    expect(pictureOf(repo, "sub")).toEqual(submodule);
  });
});
