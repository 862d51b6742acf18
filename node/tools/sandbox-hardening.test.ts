import { spawn, spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { edit, grep, read, write } from "durable-flow";
import { codeOf, rejection, sandboxDirs } from "./testing.js";

let dirs: ReturnType<typeof sandboxDirs>;
let root: string;
let outside: string;

beforeEach(() => {
  dirs = sandboxDirs("flow-harden-");
  root = dirs.root;
  outside = join(dirs.base, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "f.txt"), "SECRET\n");
});
afterEach(() => dirs.remove());

/**
 * Another process swapping `root/d` between a real directory and a symlink to `outside`, as
 * pausing 0 or 1 ms in each state, until killed. Resolves once it has swapped; its stop
 * function resolves to about how many swaps it made.
 */
async function startSwapper(): Promise<() => Promise<number>> {
  const script = `
    const fs = require("node:fs");
    const [d, real, outside] = process.argv.slice(1);
    const nap = new Int32Array(new SharedArrayBuffer(4));
    const pause = () => Atomics.wait(nap, 0, 0, Math.random() < 0.5 ? 0 : 1);
    const step = (f) => { try { f(); } catch {} };
    for (let swaps = 1; ; swaps++) {
      step(() => fs.renameSync(d, real));
      step(() => fs.symlinkSync(outside, d));
      pause();
      // A write may have created d again while it was missing (parents are created): drop that.
      step(() => fs.rmSync(d, { recursive: true, force: true }));
      step(() => fs.renameSync(real, d));
      if (swaps % 50 === 1) process.stderr.write(".");
      pause();
    }`;
  const child = spawn(process.execPath, ["-e", script, join(root, "d"), join(root, "d.real"), outside], { stdio: ["ignore", "pipe", "pipe"] });
  let swaps = 0;
  child.stderr.on("data", (c: Buffer) => (swaps += 50 * c.length));
  await new Promise<void>((resolve) => child.stderr.once("data", () => resolve()));
  return () =>
    new Promise<number>((resolve) => {
      // The swapper never yields to its event loop, so only SIGKILL stops it.
      child.once("close", () => resolve(swaps));
      child.kill("SIGKILL");
    });
}

describe("file sandbox under a concurrent symlink swap", () => {
  it("never writes, reads or greps outside rootDir over thousands of calls", async () => {
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "d", "f.txt"), "inside\n");
    const stop = await startSwapper();
    const outcomes = new Map<string, number>();
    const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    let leakedReads = 0;
    const calls = 2000;
    const started = Date.now();
    try {
      for (let i = 0; i < calls; i += 25) {
        await Promise.all(
          Array.from({ length: 25 }, async (_, j) => {
            const n = i + j;
            const w = await write.execute({ path: `d/w${n}.txt`, content: "x" }, { rootDir: root }).then(
              () => "ok",
              (e: { code?: string }) => e.code ?? String(e),
            );
            count(`write:${w}`);
            const r = await read.execute({ path: "d/f.txt" }, { rootDir: root }).then(
              (text) => (text === "SECRET\n" ? "LEAKED" : "ok"),
              (e: { code?: string }) => e.code ?? String(e),
            );
            if (r === "LEAKED") leakedReads++;
            count(`read:${r}`);
            if (n % 10 === 0) {
              const g = await grep.execute({ pattern: "SECRET|inside", path: "d" }, { rootDir: root }).then(
                (out) => (out.includes("SECRET") ? "LEAKED" : "ok"),
                (e: { code?: string }) => e.code ?? String(e),
              );
              if (g === "LEAKED") leakedReads++;
              count(`grep:${g}`);
            }
          }),
        );
      }
    } finally {
      const swaps = await stop();
      expect(swaps).toBeGreaterThan(100);
    }
    const escapedWrites = readdirSync(outside).filter((f) => f !== "f.txt");
    expect(escapedWrites).toEqual([]);
    expect(leakedReads).toBe(0);
    expect(readFileSync(join(outside, "f.txt"), "utf8")).toBe("SECRET\n");
    // The race was real: calls met the swapped symlink and were refused, others went through.
    expect((outcomes.get("write:TOOL_PATH_OUTSIDE_ROOT") ?? 0) + (outcomes.get("read:TOOL_PATH_OUTSIDE_ROOT") ?? 0)).toBeGreaterThan(0);
    expect((outcomes.get("write:ok") ?? 0) + (outcomes.get("read:ok") ?? 0)).toBeGreaterThan(0);
    // Only sandbox codes: no raw errno reaches the caller.
    // (rg may also fail on a directory the swapper removed under it: TOOL_GREP_FAILED.)
    for (const key of outcomes.keys()) expect(key).toMatch(/^((read|write|grep):(ok|TOOL_PATH_OUTSIDE_ROOT|TOOL_FILE_NOT_FOUND)|grep:TOOL_GREP_FAILED)$/);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);
});

describe("hard links", () => {
  it("write and edit replace a hard-linked file instead of changing the inode shared with the outside", async () => {
    linkSync(join(outside, "f.txt"), join(root, "w.txt"));
    linkSync(join(outside, "f.txt"), join(root, "e.txt"));
    await write.execute({ path: "w.txt", content: "new\n" }, { rootDir: root });
    await edit.execute({ path: "e.txt", patch: "--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-SECRET\n+edited\n" }, { rootDir: root });
    expect(readFileSync(join(outside, "f.txt"), "utf8")).toBe("SECRET\n");
    expect(statSync(join(outside, "f.txt")).nlink).toBe(1);
    expect(readFileSync(join(root, "w.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(join(root, "e.txt"), "utf8")).toBe("edited\n");
  });

  it("keeps the mode of a replaced file and leaves no temporary file behind", async () => {
    writeFileSync(join(root, "run.sh"), "echo a\n", { mode: 0o750 });
    await write.execute({ path: "run.sh", content: "echo b\n" }, { rootDir: root });
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o750);
    expect(readdirSync(root)).toEqual(["run.sh"]);
  });
});

describe("files that are not regular files", () => {
  it("refuses a FIFO at once (read, write, edit) with TOOL_FILE_NOT_REGULAR", async () => {
    expect(spawnSync("mkfifo", [join(root, "pipe")]).status).toBe(0);
    const started = Date.now();
    expect(await codeOf(read.execute({ path: "pipe" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
    expect(await codeOf(write.execute({ path: "pipe", content: "x" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
    expect(await codeOf(edit.execute({ path: "pipe", patch: "@@ -1 +1 @@\n-a\n+b\n" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("refuses a unix socket and a device", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, "sock"), resolve));
    try {
      expect(await codeOf(read.execute({ path: "sock" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
    } finally {
      server.close();
    }
    // Creating a device node needs root; this machine's tests run as root (checked, not assumed).
    if (spawnSync("mknod", [join(root, "null"), "c", "1", "3"]).status === 0) {
      expect(await codeOf(read.execute({ path: "null" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
      expect(await codeOf(write.execute({ path: "null", content: "x" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_REGULAR");
    } else {
      expect(process.getuid?.()).not.toBe(0);
    }
  });

  it("gives a too-long path TOOL_PATH_TOO_LONG instead of a raw ENAMETOOLONG", async () => {
    const longName = "a".repeat(300);
    const longPath = Array.from({ length: 40 }, () => "b".repeat(120)).join("/");
    for (const path of [longName, `sub/${longName}/x.txt`, longPath]) {
      expect(await codeOf(read.execute({ path }, { rootDir: root })), path.slice(0, 20)).toBe("TOOL_PATH_TOO_LONG");
      expect(await codeOf(write.execute({ path, content: "x" }, { rootDir: root })), path.slice(0, 20)).toBe("TOOL_PATH_TOO_LONG");
    }
    expect(existsSync(join(root, "sub"))).toBe(false);
  });
});

describe("file system failures get Flow codes", () => {
  it("a full disk is TOOL_DISK_FULL and a read-only one TOOL_PERMISSION_DENIED, the old file kept", async () => {
    // Mounting needs root; where it is refused this case cannot be staged and says so.
    const small = join(root, "small");
    mkdirSync(small);
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small]).status !== 0) {
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    try {
      await write.execute({ path: "small/keep.txt", content: "old\n" }, { rootDir: root });
      const e = await rejection(write.execute({ path: "small/keep.txt", content: "x".repeat(150_000) }, { rootDir: root }));
      expect(e.code).toBe("TOOL_DISK_FULL");
      expect(e.message).toMatch(/Free disk space/);
      expect(readFileSync(join(small, "keep.txt"), "utf8")).toBe("old\n");
      expect(readdirSync(small)).toEqual(["keep.txt"]);
      expect(spawnSync("mount", ["-o", "remount,ro", small]).status).toBe(0);
      expect(await codeOf(write.execute({ path: "small/keep.txt", content: "new" }, { rootDir: root }))).toBe("TOOL_PERMISSION_DENIED");
      expect(await read.execute({ path: "small/keep.txt" }, { rootDir: root })).toBe("old\n");
    } finally {
      spawnSync("umount", ["-l", small]);
    }
  });
});
