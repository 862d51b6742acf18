import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, runWorkflow } from "durable-flow";
import { tempDir, testBackends } from "../testing/backends.js";

const schemas = { file: z.object({ path: z.string(), cwd: z.string() }) };

function gitRepo(): string {
  const dir = tempDir("flow-ws-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "flow@test");
  git("config", "user.name", "Flow test");
  writeFileSync(join(dir, "README.md"), "hello\n");
  git("add", ".");
  git("commit", "-qm", "init");
  return dir;
}

describe.each(testBackends)("Worktree and Sandbox on $name", (backend) => {
  it("runs a Worktree's tasks in a git worktree of their own branch, and a Sandbox's in a seeded copy", async () => {
    const repo = gitRepo();
    const { api } = await backend.open(schemas);
    const write = (id: string, name: string) => (task: { rootDir?: string }) => {
      writeFileSync(join(task.rootDir!, name), `${id}\n`);
      return { path: join(task.rootDir!, name), cwd: task.rootDir! };
    };
    const wf = api.flow(() => (
      <api.Workflow name="workspaces">
        <api.Worktree id="fix" branch="fix/typo">
          <api.Task id="patch" output={api.outputs.file}>{write("patch", "PATCH.md")}</api.Task>
        </api.Worktree>
        <api.Sandbox id="scratch" from=".">
          <api.Task id="experiment" output={api.outputs.file}>{write("experiment", "README.md")}</api.Task>
        </api.Sandbox>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(r.status).toBe("finished");
    const rows = await new FlowDb(api.db).listOutputs(r.runId, "file");
    const patch = rows.find((row) => row.nodeId === "patch")!;
    const experiment = rows.find((row) => row.nodeId === "experiment")!;
    expect(patch.cwd).toBe(join(repo, ".flow", "worktrees", r.runId, "fix"));
    expect(execFileSync("git", ["branch", "--show-current"], { cwd: String(patch.cwd) }).toString().trim()).toBe("fix/typo");
    expect(existsSync(join(String(patch.cwd), "README.md"))).toBe(true);
    expect(existsSync(join(repo, "PATCH.md"))).toBe(false);
    // The sandbox started as a copy of the repository; writing there leaves the original alone.
    expect(experiment.cwd).toBe(join(repo, ".flow", "sandboxes", r.runId, "scratch"));
    expect(readFileSync(String(experiment.path), "utf8")).toBe("experiment\n");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("hello\n");
    const frame = await new FlowDb(api.db).getFrame(r.runId);
    expect(frame?.tasks.find((t) => t.nodeId === "patch")).toMatchObject({ worktreeId: "fix", worktreeBranch: "fix/typo" });
  });
});
