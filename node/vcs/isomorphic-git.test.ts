import * as fs from "node:fs";
import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createIsomorphicGitVcs } from "../../browser/vcs/isomorphic-git.js";
import { isFlowError } from "../../core/errors.js";
import { createGitVcs } from "./git.js";
import { gitIn, snapshotSeries, tempRepo, treePicture, userGitState } from "./testing.js";

const binary = (seed: number) => Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 13 + seed) % 256));

// The browser port, run in Node over the real file system: the same repository format, so
// its snapshots are checked against the git executable too.
describe("isomorphic-git VCS port", () => {
  it("snapshots and restores byte for byte (edit, create, delete, chmod, binary, symlink), readable by git itself", async () => {
    const dir = tempRepo();
    mkdirSync(join(dir, ".flow"));
    writeFileSync(join(dir, ".flow", "flow.db"), "db");
    writeFileSync(join(dir, "x.log"), "ignored");
    const vcs = createIsomorphicGitVcs({ fs });
    expect(await vcs.detect(dir)).toBe(dir);
    const user = userGitState(dir);
    const skip = (p: string) => p === ".flow" || p === "x.log";
    const { pictures, pointers, take } = snapshotSeries(vcs, dir, "refs/flow/runs/b/", skip);
    await take();
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.txt"), "one\n");
    writeFileSync(join(dir, "blob.bin"), binary(1));
    await take();
    chmodSync(join(dir, "src", "a.txt"), 0o755);
    writeFileSync(join(dir, "blob.bin"), binary(2));
    symlinkSync("src/a.txt", join(dir, "link"));
    unlinkSync(join(dir, "README.md"));
    await take();
    rmSync(join(dir, "src"), { recursive: true });
    await take();

    for (const i of [0, 2, 1, 3, 2]) {
      await vcs.restore(dir, pointers[i]!);
      expect(treePicture(dir, skip), `restore to ${i}`).toEqual(pictures[i]);
    }
    expect(userGitState(dir)).toEqual(user);
    expect(fs.readFileSync(join(dir, ".flow", "flow.db"), "utf8")).toBe("db");

    // git reads the commits isomorphic-git wrote, and the git port restores them exactly.
    expect(gitIn(dir, "ls-tree", "-r", "--name-only", pointers[2]!).split("\n").sort()).toEqual([".gitignore", "blob.bin", "link", "src/a.txt"]);
    await createGitVcs().restore(dir, pointers[1]!);
    expect(treePicture(dir, skip)).toEqual(pictures[1]);

    expect((await vcs.diff(dir, pointers[1]!, pointers[2]!)).map((c) => `${c.status} ${c.path}`)).toEqual(["deleted README.md", "modified blob.bin", "added link", "modified src/a.txt"]);
    expect((await vcs.list(dir, "refs/flow/runs/b/")).map((r) => r.pointer).sort()).toEqual([...pointers].sort());
    expect(await vcs.remove(dir, "refs/flow/runs/b/")).toBe(4);
    expect(await vcs.list(dir, "refs/flow/runs/b/")).toEqual([]);
    await expect(vcs.restore(dir, "1".repeat(40))).rejects.toSatisfy((e) => isFlowError(e, "VCS_FAILED"));
  });
});
