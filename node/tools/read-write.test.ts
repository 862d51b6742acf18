import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getDefinedToolMetadata, read, tools, write } from "durable-flow";
import { codeOf, rejection, sandboxDirs } from "./testing.js";

let dirs: ReturnType<typeof sandboxDirs>;
let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  dirs = sandboxDirs("flow-tools-");
  ({ base, root } = dirs);
  outside = join(base, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "top secret\n");
});
afterEach(() => dirs.remove());

describe("read", () => {
  it("returns a file's UTF-8 contents, by relative or absolute path inside rootDir", async () => {
    writeFileSync(join(root, "a.txt"), "héllo\n");
    expect(await read.execute({ path: "a.txt" }, { rootDir: root })).toBe("héllo\n");
    expect(await read.execute({ path: join(root, "a.txt") }, { rootDir: root })).toBe("héllo\n");
  });

  it("refuses files larger than maxOutputBytes", async () => {
    writeFileSync(join(root, "big.txt"), "x".repeat(101));
    expect(await codeOf(read.execute({ path: "big.txt" }, { rootDir: root, maxOutputBytes: 100 }))).toBe("TOOL_FILE_TOO_LARGE");
    expect(await read.execute({ path: "big.txt" }, { rootDir: root, maxOutputBytes: 101 })).toHaveLength(101);
  });

  it("fails with TOOL_FILE_NOT_FOUND for a missing file or rootDir and TOOL_INPUT_INVALID for a directory", async () => {
    expect(await codeOf(read.execute({ path: "nope.txt" }, { rootDir: root }))).toBe("TOOL_FILE_NOT_FOUND");
    expect(await codeOf(read.execute({ path: "a.txt" }, { rootDir: join(base, "no-such-root") }))).toBe("TOOL_FILE_NOT_FOUND");
    mkdirSync(join(root, "dir"));
    expect(await codeOf(read.execute({ path: "dir" }, { rootDir: root }))).toBe("TOOL_INPUT_INVALID");
  });

  it("rejects paths that leave rootDir, by dots or absolute path", async () => {
    expect(await codeOf(read.execute({ path: "../outside/secret.txt" }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(await codeOf(read.execute({ path: join(outside, "secret.txt") }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(await codeOf(read.execute({ path: "sub/../../outside/secret.txt" }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
  });

  it("rejects a symlink to a file outside rootDir, and a path through a symlinked directory", async () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(outside, join(root, "linkdir"));
    expect(await codeOf(read.execute({ path: "link.txt" }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(await codeOf(read.execute({ path: "linkdir/secret.txt" }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
  });

  it("follows symlinks that stay inside rootDir, and works when rootDir itself is a symlink", async () => {
    mkdirSync(join(root, "real"));
    writeFileSync(join(root, "real", "f.txt"), "inside");
    symlinkSync(join(root, "real"), join(root, "alias"));
    expect(await read.execute({ path: "alias/f.txt" }, { rootDir: root })).toBe("inside");
    symlinkSync(root, join(base, "rootlink"));
    expect(await read.execute({ path: "real/f.txt" }, { rootDir: join(base, "rootlink") })).toBe("inside");
    expect(await read.execute({ path: join(base, "rootlink", "real", "f.txt") }, { rootDir: join(base, "rootlink") })).toBe("inside");
  });

  it("is read-only and replay-safe", () => {
    expect(getDefinedToolMetadata(read)).toEqual({ name: "read", sideEffect: false, idempotent: true });
  });
});

describe("write", () => {
  it("writes the content, creating parent directories, and returns ok", async () => {
    expect(await write.execute({ path: "deep/er/new.txt", content: "data ✓" }, { rootDir: root })).toBe("ok");
    expect(readFileSync(join(root, "deep/er/new.txt"), "utf8")).toBe("data ✓");
    await write.execute({ path: "deep/er/new.txt", content: "replaced" }, { rootDir: root });
    expect(readFileSync(join(root, "deep/er/new.txt"), "utf8")).toBe("replaced");
  });

  it("refuses content over maxOutputBytes and reports only its byte size and SHA-256", async () => {
    const content = "confidential ".repeat(10);
    const e = await rejection(write.execute({ path: "x.txt", content }, { rootDir: root, maxOutputBytes: 50 }));
    expect(e.code).toBe("TOOL_CONTENT_TOO_LARGE");
    expect(e.details).toMatchObject({ bytes: 130, sha256: createHash("sha256").update(content).digest("hex"), maxOutputBytes: 50 });
    expect(JSON.stringify(e.details) + e.message).not.toContain("confidential");
    expect(existsSync(join(root, "x.txt"))).toBe(false);
  });

  it("counts bytes, not characters, against the limit", async () => {
    expect(await codeOf(write.execute({ path: "u.txt", content: "é".repeat(30) }, { rootDir: root, maxOutputBytes: 59 }))).toBe("TOOL_CONTENT_TOO_LARGE");
    expect(await write.execute({ path: "u.txt", content: "é".repeat(30) }, { rootDir: root, maxOutputBytes: 60 })).toBe("ok");
  });

  it("never writes outside rootDir: dots, symlinked directories, symlinked and dangling symlinked files", async () => {
    symlinkSync(outside, join(root, "linkdir"));
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(join(outside, "created-by-link.txt"), join(root, "dangling.txt"));
    for (const path of ["../outside/new.txt", "linkdir/new.txt", "linkdir/sub/new.txt", "link.txt", "dangling.txt", join(outside, "abs.txt")]) {
      expect(await codeOf(write.execute({ path, content: "pwned" }, { rootDir: root })), path).toBe("TOOL_PATH_OUTSIDE_ROOT");
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    expect(existsSync(join(outside, "created-by-link.txt"))).toBe(false);
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
  });

  it("writes through a dangling symlink whose target is inside rootDir", async () => {
    symlinkSync(join(root, "target.txt"), join(root, "pending.txt"));
    await write.execute({ path: "pending.txt", content: "via link" }, { rootDir: root });
    expect(readFileSync(join(root, "target.txt"), "utf8")).toBe("via link");
  });

  it("has side effects and is not idempotent", () => {
    expect(getDefinedToolMetadata(write)).toEqual({ name: "write", sideEffect: true, idempotent: false });
  });
});

describe("tools bundle", () => {
  it("holds exactly the five built-ins", () => {
    expect(Object.keys(tools).sort()).toEqual(["bash", "edit", "grep", "read", "write"]);
    for (const [name, t] of Object.entries(tools)) expect(t.name).toBe(name);
  });
});
