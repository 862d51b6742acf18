import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isFlowError } from "../../core/errors.js";
import { createGitVcs } from "./git.js";
import { gitIn, snapshotSeries, tempRepo, treePicture, userGitState } from "./testing.js";

const binary = (seed: number) => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + seed) % 256));

describe("git VCS port", () => {
  it("snapshots a file rewritten, at the same size, in the second your index was written (git's racy check, kept in the private index)", async () => {
    const dir = tempRepo();
    // Stat data that cannot tell the rewrite: the same size and modification time, ctime not trusted.
    gitIn(dir, "config", "core.trustctime", "false");
    const then = new Date("2026-01-01T00:00:00Z");
    writeFileSync(join(dir, "a.txt"), "v1\n");
    utimesSync(join(dir, "a.txt"), then, then);
    gitIn(dir, "add", "a.txt");
    gitIn(dir, "commit", "-q", "-m", "a");
    writeFileSync(join(dir, "a.txt"), "v2\n");
    utimesSync(join(dir, "a.txt"), then, then);
    // Your index written in that same second: git looks at the file's content again (`git diff`
    // does, without rewriting the index as `git status` would).
    utimesSync(join(dir, ".git", "index"), then, then);
    expect(gitIn(dir, "diff", "--name-only")).toBe("a.txt");
    // Taken by a snapshot, and by a prepared first snapshot (Linux), each seeding a new private index.
    for (const prepared of [false, true]) {
      rmSync(join(dir, ".git", "flow"), { recursive: true, force: true });
      const vcs = createGitVcs();
      if (prepared) vcs.prepare?.(dir);
      const pointer = await vcs.snapshot(dir, "refs/flow/runs/racy/0");
      expect(gitIn(dir, "show", `${pointer}:a.txt`)).toBe("v2");
    }
  });

  it("restores every snapshot byte for byte (edit, create, delete, chmod, binary, symlink) and never moves the user's git state", async () => {
    const dir = tempRepo();
    const vcs = createGitVcs();
    expect(await vcs.detect(dir)).toBe(gitIn(dir, "rev-parse", "--show-toplevel"));
    // The user's own state: a staged change, a stash, an unstaged edit, an ignored file, Flow's db.
    writeFileSync(join(dir, "staged.txt"), "staged\n");
    gitIn(dir, "add", "staged.txt");
    writeFileSync(join(dir, "README.md"), "# stashed\n");
    gitIn(dir, "stash", "push", "-q", "--", "README.md");
    writeFileSync(join(dir, "notes.log"), "ignored\n");
    mkdirSync(join(dir, ".flow"));
    writeFileSync(join(dir, ".flow", "flow.db"), "db v1");
    const user = userGitState(dir);
    const skip = (p: string) => p === ".flow" || p === "notes.log";
    const { pictures, pointers, take } = snapshotSeries(vcs, dir, "refs/flow/runs/t/", skip);
    await take();
    writeFileSync(join(dir, "a.txt"), "one\n");
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "blob.dat"), binary(1));
    await take();
    writeFileSync(join(dir, "a.txt"), "two\n");
    chmodSync(join(dir, "a.txt"), 0o755);
    writeFileSync(join(dir, "bin", "blob.dat"), binary(2));
    symlinkSync("a.txt", join(dir, "link"));
    await take();
    unlinkSync(join(dir, "README.md"));
    rmSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "bin"), "now a file\n"); // a directory replaced by a file
    chmodSync(join(dir, "a.txt"), 0o644); // chmod only
    await take();
    expect(new Set(pointers).size).toBe(4);

    for (const i of [0, 3, 1, 2, 0, 2]) {
      await vcs.restore(dir, pointers[i]!);
      expect(treePicture(dir, skip), `restore to snapshot ${i}`).toEqual(pictures[i]);
    }
    // Ignored files and .flow are never touched; the user's branch, HEAD, index and stash stay.
    expect(treePicture(dir)[".flow/flow.db"]).toBeDefined();
    expect(treePicture(dir)["notes.log"]).toBeDefined();
    expect(userGitState(dir)).toEqual(user);

    expect((await vcs.diff(dir, pointers[1]!, pointers[2]!)).map((c) => `${c.status} ${c.path} ${c.oldMode ?? ""}>${c.newMode ?? ""}`).sort()).toEqual([
      "added link >120000",
      "modified a.txt 100644>100755",
      "modified bin/blob.dat 100644>100644",
    ]);
    writeFileSync(join(dir, "new.txt"), "x");
    expect((await vcs.diff(dir, pointers[2]!)).map((c) => c.path)).toEqual(["new.txt"]);

    expect((await vcs.list(dir, "refs/flow/runs/t/")).length).toBe(4);
    expect(await vcs.remove(dir, "refs/flow/runs/t/")).toBe(4);
    expect(await vcs.list(dir, "refs/flow/runs/t/")).toEqual([]);
    await expect(vcs.restore(dir, "0".repeat(40))).rejects.toSatisfy((e) => isFlowError(e, "VCS_FAILED"));
  });

  it("limits snapshots to a sub-directory workspace and leaves .flow out even when git would add it", async () => {
    const dir = tempRepo({ ignoreFlow: false });
    const sub = join(dir, "pkg");
    mkdirSync(join(sub, ".flow"), { recursive: true });
    writeFileSync(join(sub, "x.txt"), "x1");
    writeFileSync(join(sub, ".flow", "flow.db"), "db");
    writeFileSync(join(dir, "outside.txt"), "o1");
    const vcs = createGitVcs();
    const p1 = await vcs.snapshot(sub, "refs/flow/runs/s/1");
    expect(gitIn(dir, "ls-tree", "-r", "--name-only", p1).split("\n")).toContain("pkg/x.txt");
    expect(gitIn(dir, "ls-tree", "-r", "--name-only", p1).split("\n")).not.toContain("pkg/.flow/flow.db");
    writeFileSync(join(sub, "x.txt"), "x2");
    writeFileSync(join(sub, ".flow", "flow.db"), "db2");
    writeFileSync(join(dir, "outside.txt"), "o2");
    await vcs.restore(sub, p1);
    expect(readFileSync(join(sub, "x.txt"), "utf8")).toBe("x1");
    expect(readFileSync(join(sub, ".flow", "flow.db"), "utf8")).toBe("db2");
    expect(readFileSync(join(dir, "outside.txt"), "utf8")).toBe("o2");
  });

  it("detects no repository outside a work tree", async () => {
    const plain = mkdtempSync(join(tmpdir(), "flow-plain-"));
    expect(await createGitVcs().detect(plain)).toBeNull();
    await expect(createGitVcs().snapshot(plain, "refs/flow/x")).rejects.toSatisfy((e) => isFlowError(e, "VCS_FAILED"));
  });
});
