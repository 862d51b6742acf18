import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeWorkspaces, type WorkspaceSpec } from "durable-flow";
import { tempDir, writeFiles } from "./testing.js";

const sandbox = (rootDir: string, extra: Partial<WorkspaceSpec> = {}): WorkspaceSpec => ({ kind: "sandbox", runId: "run-1", id: "try", rootDir, ...extra });

describe("sandbox workspaces", () => {
  it("creates an empty directory under .flow/sandboxes/<runId>/<id> when nothing is copied", async () => {
    const root = tempDir();
    const ws = await createNodeWorkspaces().prepare(sandbox(root));
    expect(ws).toEqual({ path: join(root, ".flow", "sandboxes", "run-1", "try") });
    expect(readdirSync(ws.path)).toEqual([]);
  });

  it("seeds the sandbox with a copy of from: nested files, modes and symlinks as links", async () => {
    const root = tempDir();
    writeFiles(root, { "template/src/main.ts": "main\n", "template/run.sh": "#!/bin/sh\necho hi\n", "template/.env": "A=1\n" });
    chmodSync(join(root, "template/run.sh"), 0o755);
    symlinkSync("src/main.ts", join(root, "template/link.ts"));
    const ws = await createNodeWorkspaces().prepare(sandbox(root, { from: "template" }));
    expect(readFileSync(join(ws.path, "src/main.ts"), "utf8")).toBe("main\n");
    expect(readFileSync(join(ws.path, ".env"), "utf8")).toBe("A=1\n");
    expect(statSync(join(ws.path, "run.sh")).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(ws.path, "link.ts")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws.path, "link.ts"))).toBe("src/main.ts");
    // The source is a copy, not shared: editing the sandbox leaves it alone.
    writeFileSync(join(ws.path, "src/main.ts"), "edited\n");
    expect(readFileSync(join(root, "template/src/main.ts"), "utf8")).toBe("main\n");
  });

  it("never copies again over work done in an existing sandbox", async () => {
    const root = tempDir();
    writeFiles(root, { "template/a.txt": "seed\n", "template/b.txt": "seed\n" });
    const ws = await createNodeWorkspaces().prepare(sandbox(root, { from: "template" }));
    writeFileSync(join(ws.path, "a.txt"), "work\n");
    rmSync(join(ws.path, "b.txt"));
    writeFiles(root, { "template/a.txt": "new seed\n", "template/c.txt": "new\n" });
    // A resumed run (new process, new port) prepares the same sandbox.
    const again = await createNodeWorkspaces().prepare(sandbox(root, { from: "template" }));
    expect(again).toEqual(ws);
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("work\n");
    expect(readdirSync(ws.path).sort()).toEqual(["a.txt"]);
  });

  it("copies rootDir itself (from '.') without Flow's .flow directory", async () => {
    const root = tempDir();
    writeFiles(root, { "app.ts": "app\n", ".flow/flow.db": "db", ".flow/sandboxes/old/x.txt": "old" });
    const ws = await createNodeWorkspaces().prepare(sandbox(root, { from: "." }));
    expect(readdirSync(ws.path).sort()).toEqual(["app.ts"]);
  });

  it("clears a copy abandoned by a dead process and finishes the sandbox", async () => {
    const root = tempDir();
    writeFiles(root, { "template/a.txt": "seed\n" });
    const parent = join(root, ".flow", "sandboxes", "run-1");
    const abandoned = join(parent, "try.partial-999999999-abcd1234");
    mkdirSync(abandoned, { recursive: true });
    writeFileSync(join(abandoned, "a.txt"), "half");
    const ws = await createNodeWorkspaces().prepare(sandbox(root, { from: "template" }));
    expect(readdirSync(parent)).toEqual(["try"]);
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("seed\n");
  });

  it("fails with WORKSPACE_FAILED when from is not a directory, leaving nothing behind", async () => {
    const root = tempDir();
    await expect(createNodeWorkspaces().prepare(sandbox(root, { from: "missing" }))).rejects.toMatchObject({
      code: "WORKSPACE_FAILED",
      message: expect.stringContaining('from "missing"'),
      details: { runId: "run-1", id: "try", source: join(root, "missing") },
    });
    expect(readdirSync(join(root, ".flow", "sandboxes", "run-1"))).toEqual([]);
    expect(existsSync(join(root, ".flow", "sandboxes", "run-1", "try"))).toBe(false);
  });

  it("rejects ids that would leave the run's directory", async () => {
    const root = tempDir();
    for (const id of ["..", "a/b", ""]) await expect(createNodeWorkspaces().prepare(sandbox(root, { id }))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(createNodeWorkspaces().prepare(sandbox(root, { runId: "../x" }))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
