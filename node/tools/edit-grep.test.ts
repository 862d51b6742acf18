import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { edit, getDefinedToolMetadata, grep } from "durable-flow";
import { codeOf, rejection, sandboxDirs } from "./testing.js";

let dirs: ReturnType<typeof sandboxDirs>;
let base: string;
let root: string;

beforeEach(() => {
  dirs = sandboxDirs("flow-edit-");
  ({ base, root } = dirs);
});
afterEach(() => dirs.remove());

/** `diff -u` exits 1 when the files differ: that is its normal output. */
function diffU(oldPath: string, newPath: string): string {
  const r = spawnSync("diff", ["-u", oldPath, newPath], { encoding: "utf8" });
  expect(r.status).toBe(1);
  return r.stdout;
}

const ORIGINAL = ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10", ""].join("\n");
const CHANGED = ["line 1", "LINE 2", "line 3", "line 4", "line 5", "line 6", "line 7", "inserted", "line 8", "line 9", ""].join("\n");

describe("edit", () => {
  it("applies a patch produced by diff -u", async () => {
    writeFileSync(join(root, "f.txt"), ORIGINAL);
    writeFileSync(join(base, "new.txt"), CHANGED);
    const patch = diffU(join(root, "f.txt"), join(base, "new.txt"));
    expect(await edit.execute({ path: "f.txt", patch }, { rootDir: root })).toBe("ok");
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe(CHANGED);
  });

  it("applies a patch produced by git diff, including a missing final newline", async () => {
    execFileSync("git", ["init", "-q", root]);
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "app.ts"), ORIGINAL);
    execFileSync("git", ["-C", root, "add", "."]);
    execFileSync("git", ["-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    const target = CHANGED.replace(/\n$/, "");
    writeFileSync(join(root, "src", "app.ts"), target);
    const patch = execFileSync("git", ["-C", root, "diff"], { encoding: "utf8" });
    expect(patch).toContain("diff --git a/src/app.ts b/src/app.ts");
    expect(patch).toContain("\\ No newline at end of file");
    execFileSync("git", ["-C", root, "checkout", "-q", "--", "."]);
    expect(readFileSync(join(root, "src", "app.ts"), "utf8")).toBe(ORIGINAL);

    expect(await edit.execute({ path: "src/app.ts", patch }, { rootDir: root })).toBe("ok");
    expect(readFileSync(join(root, "src", "app.ts"), "utf8")).toBe(target);
  });

  it("fails with TOOL_PATCH_FAILED when the context does not match, leaving the file unchanged", async () => {
    writeFileSync(join(root, "f.txt"), ORIGINAL);
    writeFileSync(join(base, "new.txt"), CHANGED);
    const patch = diffU(join(root, "f.txt"), join(base, "new.txt"));
    const drifted = ORIGINAL.replace("line 3", "line three");
    writeFileSync(join(root, "f.txt"), drifted);
    expect(await codeOf(edit.execute({ path: "f.txt", patch }, { rootDir: root }))).toBe("TOOL_PATCH_FAILED");
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe(drifted);
  });

  it("fails with TOOL_PATCH_FAILED for text that is not a patch and for a patch of several files", async () => {
    writeFileSync(join(root, "f.txt"), ORIGINAL);
    expect(await codeOf(edit.execute({ path: "f.txt", patch: "please change line 2" }, { rootDir: root }))).toBe("TOOL_PATCH_FAILED");
    const two = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+one\n--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n";
    expect(await codeOf(edit.execute({ path: "f.txt", patch: two }, { rootDir: root }))).toBe("TOOL_PATCH_FAILED");
  });

  it("refuses a patch over maxOutputBytes with TOOL_PATCH_TOO_LARGE", async () => {
    writeFileSync(join(root, "f.txt"), ORIGINAL);
    const patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+" + "x".repeat(200) + "\n";
    expect(await codeOf(edit.execute({ path: "f.txt", patch }, { rootDir: root, maxOutputBytes: 100 }))).toBe("TOOL_PATCH_TOO_LARGE");
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe(ORIGINAL);
  });

  it("needs an existing file inside rootDir", async () => {
    const patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    expect(await codeOf(edit.execute({ path: "missing.txt", patch }, { rootDir: root }))).toBe("TOOL_FILE_NOT_FOUND");
    writeFileSync(join(base, "outside.txt"), "a\n");
    symlinkSync(join(base, "outside.txt"), join(root, "link.txt"));
    expect(await codeOf(edit.execute({ path: "link.txt", patch }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(await codeOf(edit.execute({ path: "../outside.txt", patch }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(readFileSync(join(base, "outside.txt"), "utf8")).toBe("a\n");
  });

  it("has side effects and is not idempotent", () => {
    expect(getDefinedToolMetadata(edit)).toEqual({ name: "edit", sideEffect: true, idempotent: false });
  });
});

describe("grep", () => {
  beforeEach(() => {
    mkdirSync(join(root, "src", "lib"), { recursive: true });
    writeFileSync(join(root, "src", "a.ts"), "const x = 1;\n// TODO: rename\nexport {};\n");
    writeFileSync(join(root, "src", "lib", "b.ts"), "// todo lower\n// TODO(bob): later\n");
    writeFileSync(join(root, "README.md"), "nothing here\n");
  });

  it("prints file:line:text lines relative to rootDir", async () => {
    const out = await grep.execute({ pattern: "TODO" }, { rootDir: root });
    expect(out.trim().split("\n").sort()).toEqual(["src/a.ts:2:// TODO: rename", "src/lib/b.ts:2:// TODO(bob): later"]);
  });

  it("searches a sub-directory or a single file, still printing the file name", async () => {
    expect((await grep.execute({ pattern: "TODO", path: "src/lib" }, { rootDir: root })).trim()).toBe("src/lib/b.ts:2:// TODO(bob): later");
    expect((await grep.execute({ pattern: "const", path: "src/a.ts" }, { rootDir: root })).trim()).toBe("src/a.ts:1:const x = 1;");
  });

  it("takes a regular expression, even one that starts with a dash", async () => {
    writeFileSync(join(root, "flags.txt"), "--verbose\n-v\n");
    expect((await grep.execute({ pattern: "TODO\\(\\w+\\)" }, { rootDir: root })).trim()).toBe("src/lib/b.ts:2:// TODO(bob): later");
    expect((await grep.execute({ pattern: "--verb", path: "flags.txt" }, { rootDir: root })).trim()).toBe("flags.txt:1:--verbose");
  });

  it("returns an empty string when nothing matches", async () => {
    expect(await grep.execute({ pattern: "no-such-text-anywhere" }, { rootDir: root })).toBe("");
  });

  it("fails with TOOL_GREP_FAILED when rg exits with code 2 (invalid regex)", async () => {
    const error = await rejection(grep.execute({ pattern: "(unclosed" }, { rootDir: root }));
    expect(error.code).toBe("TOOL_GREP_FAILED");
    expect(error.details?.exitCode).toBe(2);
  });

  it("truncates its output to maxOutputBytes", async () => {
    writeFileSync(join(root, "many.txt"), Array.from({ length: 500 }, (_, i) => `match ${i}`).join("\n"));
    const out = await grep.execute({ pattern: "match", path: "many.txt" }, { rootDir: root, maxOutputBytes: 300 });
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(300);
    expect(out).toContain("many.txt:1:match 0");
    expect(out).toMatch(/\[output truncated: \d+ of \d+ bytes omitted\]$/);
  });

  it("stays inside rootDir", async () => {
    writeFileSync(join(base, "secret.txt"), "TODO outside\n");
    symlinkSync(join(base, "secret.txt"), join(root, "link.txt"));
    expect(await codeOf(grep.execute({ pattern: "TODO", path: ".." }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect(await codeOf(grep.execute({ pattern: "TODO", path: "link.txt" }, { rootDir: root }))).toBe("TOOL_PATH_OUTSIDE_ROOT");
    // A directory search does not follow the symlink out either.
    expect(await grep.execute({ pattern: "outside" }, { rootDir: root })).toBe("");
  });

  it("is read-only and replay-safe", () => {
    expect(getDefinedToolMetadata(grep)).toEqual({ name: "grep", sideEffect: false, idempotent: true });
  });
});
