/**
 * Workspaces (docs/workspaces.md): two changes tried side by side without touching the checkout
 * the run started from. In a `Worktree` (a git worktree on the branch `flow/<runId>/fix`), a
 * task fixes a typo and commits it; in a `Sandbox` (a copy of the project), a task tries a
 * version bump and checks the result. Compute tasks stand in for coding agents: an agent in
 * the same place would get the same `rootDir` for its tools.
 *
 * The run's `rootDir` must be inside a git repository with a commit. `flow up` uses the working
 * directory, so run it from a repository (with `.flow/` in its .gitignore):
 *
 *   npx flow up examples/workspaces.tsx --input '{"file":"README.md","typo":"teh","fix":"the"}'
 *
 * `npx tsx examples/workspaces.tsx` runs `main()`, which makes a throwaway repository, runs the
 * workflow there and removes the run's workspaces. The store is `.flow/examples/workspaces.db`
 * (or `$FLOW_EXAMPLE_DB`).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createFlow, removeRunWorkspaces, runWorkflow } from "durable-flow";
import type { FlowApi, RunResult } from "durable-flow";

export const schemas = {
  input: z.object({
    /** The file with the typo, relative to the repository. */
    file: z.string(),
    typo: z.string(),
    fix: z.string(),
  }),
  patch: z.object({ branch: z.string(), commit: z.string(), dir: z.string() }),
  trial: z.object({ dir: z.string(), version: z.string(), ok: z.boolean() }),
  output: z.object({ branch: z.string(), commit: z.string(), trialVersion: z.string(), trialOk: z.boolean() }),
};

/** git with a fixed identity, so commits work on any machine. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Flow example", "-c", "user.email=flow@example.invalid", ...args], { cwd, encoding: "utf8" }).trim();
}

/** The workspaces workflow on an api (the default export uses the example's own store). */
export function workspaces(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, Parallel, Worktree, Sandbox, outputs } = api;
  return flow((ctx) => {
    const { file, typo, fix } = ctx.input;
    return (
      <Workflow name="workspaces">
        <Parallel>
          <Worktree id="fix">
            <Task id="patch" output={outputs.patch}>
              {(task) => {
                const dir = task.rootDir!; // the worktree
                const path = join(dir, file);
                writeFileSync(path, readFileSync(path, "utf8").replaceAll(typo, fix));
                // A retried attempt finds its earlier commit in the worktree: commit only once.
                if (git(dir, "status", "--porcelain")) git(dir, "commit", "-qam", `Fix "${typo}" in ${file}`);
                return { branch: git(dir, "branch", "--show-current"), commit: git(dir, "rev-parse", "HEAD"), dir };
              }}
            </Task>
          </Worktree>
          <Sandbox id="bump-trial" from=".">
            <Task id="trial" output={outputs.trial}>
              {(task) => {
                const dir = task.rootDir!; // the copy
                const pkgPath = join(dir, "package.json");
                const pkg = existsSync(pkgPath) ? (JSON.parse(readFileSync(pkgPath, "utf8")) as { version?: string }) : {};
                const [major = 0] = (pkg.version ?? "0.0.0").split(".").map(Number);
                pkg.version = `${major + 1}.0.0`;
                writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
                // "Run the checks" of the bumped copy.
                const ok = (JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string }).version === pkg.version;
                return { dir, version: pkg.version, ok };
              }}
            </Task>
          </Sandbox>
        </Parallel>
        <Task id="report" output={outputs.output}>
          {() => {
            const patch = ctx.output(outputs.patch, { nodeId: "patch" });
            const trial = ctx.output(outputs.trial, { nodeId: "trial" });
            return { branch: patch.branch, commit: patch.commit, trialVersion: trial.version, trialOk: trial.ok };
          }}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/workspaces.db" });
const workflow = workspaces(api);
export default workflow;

/** A small repository to work on: a README with a typo and a package.json, one commit. */
export function makeRepository(dir = mkdtempSync(join(tmpdir(), "flow-workspaces-"))): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "README.md"), "# Demo\n\nThis is teh demo project.\n");
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "demo", version: "1.4.2" }, null, 2)}\n`);
  writeFileSync(join(dir, ".gitignore"), ".flow/\n");
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "Initial commit");
  return dir;
}

/** Runs the workflow in a throwaway repository, shows what each workspace holds, cleans up. */
export async function main(): Promise<RunResult> {
  const repo = makeRepository();
  try {
    const result = await runWorkflow(workflow, { input: { file: "README.md", typo: "teh", fix: "the" }, rootDir: repo });
    console.log(result.status, result.output);
    console.log(git(repo, "log", "--oneline", "main..flow/" + result.runId + "/fix"));
    console.log(await removeRunWorkspaces(repo, result.runId, { deleteBranches: true }));
    return result;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
