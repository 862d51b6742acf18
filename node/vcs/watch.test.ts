import { appendFileSync, chmodSync, mkdirSync, readFile, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { IgnoredDirs } from "./ignored-dirs.js";
import { gitIn, tempRepo } from "./testing.js";
import { tooManyDirectories, watchBudget, watchTree } from "./watch.js";

describe.runIf(process.platform === "linux")("watchTree", () => {
  /** Whether something happened under the watch since `before`, once this process's writes are seen. */
  async function movedSince(w: ReturnType<typeof watchTree>, before: number): Promise<boolean> {
    await w.settle();
    return w.generation !== before;
  }

  /** Writes each path in turn: the watch counts each write and, where `named`, names exactly that path. */
  async function expectCounted(w: ReturnType<typeof watchTree>, root: string, paths: string[], named = true): Promise<void> {
    for (const path of paths) {
      const g = w.generation;
      writeFileSync(join(root, path), path);
      expect(await movedSince(w, g), path).toBe(true);
      if (named) expect(w.changedSince(g, 10), path).toEqual([path]);
    }
  }

  it("counts writes made just before settle, in directories made after the watch started, and chmods", async () => {
    const root = tempDir("flow-watch-");
    const w = watchTree(root);
    expect(w.trusted).toBe(true);
    let g = w.generation;
    expect(await movedSince(w, g)).toBe(false);

    mkdirSync(join(root, "a/b/c"), { recursive: true });
    expect(await movedSince(w, g)).toBe(true);
    g = w.generation;
    // The new directories are watched: a write deep inside counts.
    writeFileSync(join(root, "a/b/c/f.txt"), "x");
    expect(await movedSince(w, g)).toBe(true);
    g = w.generation;
    chmodSync(join(root, "a/b/c/f.txt"), 0o755);
    expect(await movedSince(w, g)).toBe(true);
    g = w.generation;
    // A directory moved away and another made in its place: both still watched.
    renameSync(join(root, "a/b"), join(root, "moved"));
    mkdirSync(join(root, "a/b"));
    await w.settle();
    g = w.generation;
    writeFileSync(join(root, "moved/c/g.txt"), "y");
    expect(await movedSince(w, g)).toBe(true);
    g = w.generation;
    writeFileSync(join(root, "a/b/h.txt"), "z");
    expect(await movedSince(w, g)).toBe(true);
    g = w.generation;
    rmSync(join(root, "moved"), { recursive: true });
    expect(await movedSince(w, g)).toBe(true);
    expect(w.trusted).toBe(true);
  });

  it("counts a write made in an I/O callback (libuv's poll phase, after it read the queue) once settled", async () => {
    const root = tempDir("flow-watch-");
    writeFileSync(join(root, "seed.txt"), "seed");
    const w = watchTree(root);
    for (let i = 0; i < 20; i++) {
      const g = w.generation;
      // A callback of the poll phase writes, then settles at once: the inotify queue was read
      // before the write, so one turn of the loop (the check phase just after) would not see it.
      const moved = await new Promise<boolean>((resolve, reject) =>
        readFile(join(root, "seed.txt"), (error) => {
          if (error) return reject(error);
          writeFileSync(join(root, `f${i}.txt`), "x");
          w.settle().then(() => resolve(w.generation !== g), reject);
        }),
      );
      expect(moved, `write ${i}`).toBe(true);
    }
  });

  it("takes at most its budget of directories (half of the system's inotify watches), and says why it cannot be trusted past it", async () => {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"));
    expect(watchBudget()).toBe(Math.floor(limit / 2));

    const within = tempDir("flow-watch-");
    const beyond = tempDir("flow-watch-");
    for (const dir of ["a", "b"]) mkdirSync(join(within, dir));
    for (const dir of ["a", "b", "c/d"]) mkdirSync(join(beyond, dir), { recursive: true });
    const kept = watchTree(within, undefined, 3);
    expect(kept.trusted).toBe(true);
    expect(kept.whyUntrusted).toBeUndefined();
    const g = kept.generation;
    writeFileSync(join(within, "b", "f.txt"), "x");
    expect(await movedSince(kept, g)).toBe(true);

    // Five directories against three: nothing it says can be trusted, and it says why and what to do.
    const dropped = watchTree(beyond, undefined, 3);
    expect(dropped.trusted).toBe(false);
    expect(dropped.whyUntrusted).toContain("more than 3 directories to watch (the maxWatchedDirs it was given): raise it");
    // Past the system's own budget, the fix is the system's limit.
    expect(tooManyDirectories(watchBudget())).toContain(`more than ${watchBudget()} directories to watch (half of fs.inotify.max_user_watches)`);
    expect(tooManyDirectories(watchBudget())).toContain(`sudo sysctl fs.inotify.max_user_watches=${Math.max(524_288, 2 * limit)}`);
    expect(dropped.changedSince(0, 10)).toBeUndefined();
  });

  it("counts writes in every directory that existed before it started, leaf or not, and in one made inside a leaf after", async () => {
    const root = tempDir("flow-watch-");
    // Leaves (no sub-directory: not listed where link counts say so) beside and below directories that have some.
    for (const dir of ["a/b/c", "a/b/leaf", "a/leaf", "leaf", "x/y"]) mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, "a/b/leaf/f.txt"), "f");
    const w = watchTree(root);
    for (const dir of ["a", "a/b", "a/b/c", "a/b/leaf", "a/leaf", "leaf", "x", "x/y"]) {
      const g = w.generation;
      writeFileSync(join(root, dir, "new.txt"), dir);
      expect(await movedSince(w, g), dir).toBe(true);
      expect(w.changedSince(g, 10), dir).toEqual([`${dir}/new.txt`]);
    }
    mkdirSync(join(root, "leaf/grown"));
    await w.settle();
    const g = w.generation;
    writeFileSync(join(root, "leaf/grown/deep.txt"), "d");
    expect(await movedSince(w, g)).toBe(true);
  });

  it("watches a directory renamed over an empty watched one in its place (no event says the old one went)", async () => {
    const root = tempDir("flow-watch-");
    mkdirSync(join(root, "target"));
    mkdirSync(join(root, "src/inner"), { recursive: true });
    const w = watchTree(root);
    renameSync(join(root, "src"), join(root, "target"));
    await w.settle();
    await expectCounted(w, root, ["target/f.txt", "target/inner/g.txt"]);
  });

  it("watches a directory removed and made again at once, which gets its inode numbers back (ext4)", async () => {
    const root = tempDir("flow-watch-");
    mkdirSync(join(root, "src/deep"), { recursive: true });
    const w = watchTree(root);
    rmSync(join(root, "src"), { recursive: true });
    mkdirSync(join(root, "src/deep"), { recursive: true });
    await w.settle();
    await expectCounted(w, root, ["src/a.txt", "src/deep/b.txt"]);
  });

  it("after events were lost, cannot vouch for the interval, and watches what was made meanwhile", async () => {
    const root = tempDir("flow-watch-");
    mkdirSync(join(root, "src/deep"), { recursive: true });
    mkdirSync(join(root, "burst"));
    for (let i = 0; i < 10_000; i++) writeFileSync(join(root, "burst", `${i}`), "");
    const w = watchTree(root);
    const g0 = w.generation;
    // More events than the kernel queues before Node reads them (16,384 by default): the later
    // ones, the directory removed and made again among them, are lost.
    for (let round = 0; round < 2; round++) for (let i = 0; i < 10_000; i++) appendFileSync(join(root, "burst", `${i}`), "x");
    rmSync(join(root, "src"), { recursive: true });
    mkdirSync(join(root, "src/deep"), { recursive: true });
    await w.settle();
    expect(w.changedSince(g0, 100_000)).toBeUndefined();
    // Past the paths it remembers (the burst named 10,000), it counts writes without naming them.
    await expectCounted(w, root, ["src/a.txt", "src/deep/b.txt"], false);
  });

  it("names the .gitignore files inside a directory that appeared with them", async () => {
    const root = tempDir("flow-watch-");
    const made = tempDir("flow-watch-made-");
    mkdirSync(join(made, "inner"));
    writeFileSync(join(made, ".gitignore"), "*.bin\n");
    writeFileSync(join(made, "inner", ".gitignore"), "*.tmp\n");
    writeFileSync(join(made, "inner", "f.txt"), "f");
    const w = watchTree(root);
    const g = w.generation;
    renameSync(made, join(root, "pkg"));
    await w.settle();
    // No event named them: they were there before the directory's watch was.
    expect(w.changedSince(g, 10)?.sort()).toEqual(["pkg", "pkg/.gitignore", "pkg/inner/.gitignore"]);
  });

  it("ignores Flow's store folder at the root and git's directory", async () => {
    const root = tempDir("flow-watch-");
    mkdirSync(join(root, ".git"));
    const w = watchTree(root);
    const g = w.generation;
    mkdirSync(join(root, ".flow/app"), { recursive: true });
    writeFileSync(join(root, ".flow/app/flow.db"), "store");
    writeFileSync(join(root, ".git/index"), "index");
    expect(await movedSince(w, g)).toBe(false);
    // A `.flow` deeper down is a user's folder like any other.
    mkdirSync(join(root, "sub/.flow"), { recursive: true });
    expect(await movedSince(w, g)).toBe(true);
  });

  it("names the paths changed since a generation, a new directory by its own name", async () => {
    const root = tempDir("flow-watch-");
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "d/keep.txt"), "k");
    const w = watchTree(root);
    const g = w.generation;
    writeFileSync(join(root, "d/keep.txt"), "k2");
    mkdirSync(join(root, "n/m"), { recursive: true });
    renameSync(join(root, "d/keep.txt"), join(root, "d/moved.txt"));
    await w.settle();
    expect(w.changedSince(g, 100)?.sort()).toEqual(["d/keep.txt", "d/moved.txt", "n"]);
    expect(w.changedSince(g, 2)).toBeUndefined();
    const g2 = w.generation;
    expect(w.changedSince(g2, 100)).toEqual([]);
    writeFileSync(join(root, "n/m/after.txt"), "a");
    await w.settle();
    expect(w.changedSince(g2, 100)).toEqual(["n/m/after.txt"]);
  });

  it("names a repository inside the root when its HEAD moves: those its index holds from the start, others once told", async () => {
    const lib = tempRepo();
    gitIn(lib, "commit", "-q", "--allow-empty", "-m", "lib");
    const root = tempRepo();
    gitIn(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub");
    gitIn(root, "clone", "-q", lib, "clone");
    const w = watchTree(root, new IgnoredDirs(root, "", [join(root, ".git/index")]));
    // The submodule is in the index: watched before anything else happened (its git directory is the outer .git/modules/sub).
    let g = w.generation;
    gitIn(join(root, "sub"), "commit", "-q", "--allow-empty", "-m", "moved");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["sub"]);

    // The clone is not: a commit there is no event until the watch is told, and telling it names it once.
    g = w.generation;
    gitIn(join(root, "clone"), "commit", "-q", "--allow-empty", "-m", "unseen");
    await w.settle();
    expect(w.generation).toBe(g);
    w.watchRepositories(["sub", "clone"]);
    expect(w.changedSince(g, 10)).toEqual(["clone"]);
    g = w.generation;
    w.watchRepositories(["sub", "clone"]);
    gitIn(join(root, "clone"), "reset", "-q", "--soft", "HEAD~1");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["clone"]);

    // One no longer listed is let go; `git status` there (which may rewrite its index) is no move.
    w.watchRepositories(["clone"]);
    g = w.generation;
    gitIn(join(root, "sub"), "commit", "-q", "--allow-empty", "-m", "let go");
    gitIn(join(root, "clone"), "status", "--porcelain");
    await w.settle();
    expect(w.generation).toBe(g);
  });

  it("is one watch per directory, shared in the process", () => {
    const root = tempDir("flow-watch-");
    expect(watchTree(root)).toBe(watchTree(root));
  });
});
