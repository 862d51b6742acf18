import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseShell } from "shell-quote";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { CliIO } from "../cli/command.js";
import { main } from "../cli/main.js";
import { createFlow, FlowDb } from "../index.js";
import { tempDir } from "../testing/backends.js";
import { flowProcess } from "../testing/flow-process.js";
import { gitIn, tempRepo } from "../vcs/testing.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/time-travel/fixtures/cli-workflow.tsx");
const COMMANDS = ["timeline", "rewind", "revert", "fork", "replay", "snapshots"];

function captureIO(cwd: string): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd, env: process.env, isTTY: false, out: () => out, err: () => err };
}

async function flow(cwd: string, ...argv: string[]) {
  const io = captureIO(cwd);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

type Fixture = { default: Parameters<typeof import("durable-flow").runWorkflow>[0] };

/**
 * Runs a fixture workflow (node/time-travel/fixtures, imported by `load` once `FLOW_TEST_DB` and
 * `env` are set for the test: it opens its store when evaluated) to its end on a new SQLite
 * store, rooted in `repo`.
 */
async function runFixture(load: () => Promise<Fixture>, repo: string, env: Record<string, string>, input: Record<string, unknown>): Promise<{ runId: string; db: string }> {
  const db = join(tempDir(), "flow.db");
  for (const [key, value] of Object.entries({ FLOW_TEST_DB: db, ...env })) vi.stubEnv(key, value);
  onTestFinished(() => void vi.unstubAllEnvs());
  const { default: wf } = await load();
  const { runWorkflow } = await import("durable-flow");
  const { runId, status } = await runWorkflow(wf, { input, rootDir: repo });
  expect(status).toBe("finished");
  return { runId, db };
}

describe("time-travel CLI", () => {
  it("prints help with an example for each command", async () => {
    for (const name of COMMANDS) {
      const { code, out } = await flow(ROOT, name, "--help");
      expect(code).toBe(0);
      expect(out).toContain(`Usage: flow ${name}`);
      expect(out).toContain(`Example:\n  flow ${name}`);
    }
  });

  it("timeline, rewind, snapshots, revert, fork and replay a run in a real repository", async () => {
    const repo = tempRepo();
    const { runId, db } = await runFixture(() => import("./fixtures/cli-workflow.js"), repo, { FLOW_TEST_REPO: repo }, { word: "one" });

    const timeline = await flow(repo, "timeline", runId, "--db", db, "--json");
    const attempts = JSON.parse(timeline.out).attempts as Array<{ nodeId: string; vcsStartPointer: string; vcsPointer: string }>;
    expect(attempts.map((a) => a.nodeId)).toEqual(["a", "b"]);
    expect(attempts.every((a) => /^[0-9a-f]{40}$/.test(a.vcsStartPointer) && /^[0-9a-f]{40}$/.test(a.vcsPointer))).toBe(true);
    expect((await flow(repo, "timeline", runId, "--db", db)).out).toMatch(/a #1\s+finished/);

    const diff = await flow(repo, "snapshots", runId, "--db", db, "--diff", "b");
    expect(diff.out).toContain("A b.txt");
    // With --patch, how each file changed, as git prints it.
    const patched = await flow(repo, "snapshots", runId, "--db", db, "--diff", "b", "--patch");
    expect(patched.out).toMatch(/A b\.txt\n\ndiff --git a\/b\.txt b\/b\.txt\nnew file mode 100644\n.*\n--- \/dev\/null\n\+\+\+ b\/b\.txt\n@@ -0,0 \+1 @@\n\+/);
    expect((await flow(repo, "snapshots", runId, "--db", db, "--patch")).code).toBe(2);
    expect(JSON.parse((await flow(repo, "snapshots", runId, "--db", db, "--json")).out).snapshots).toHaveLength(4);

    // The run recorded its workflow file. Without it, a store opened without the workflow's
    // tables cannot delete rows: refused, nothing moves.
    const store = createFlow({}, { dbPath: db }).db;
    const recorded = (await new FlowDb(store).requireRun(runId)).workflowPath;
    expect(recorded).toBe(FIXTURE);
    await new FlowDb(store).store.execute(`UPDATE _flow_runs SET workflow_path = NULL WHERE run_id = ?`, [runId]);
    const blind = await flow(repo, "rewind", runId, "b", "--db", db);
    expect(blind.code).toBe(1);
    expect(blind.out).toContain("--workflow");
    expect(existsSync(join(repo, "b.txt"))).toBe(true);
    const blindFork = await flow(repo, "fork", runId, "b", "--db", db);
    expect(blindFork.code).toBe(2);
    expect(blindFork.out + blindFork.err).toContain(`run ${runId} recorded no workflow file that exists now: give the file first (flow fork <workflow file> ${runId} ...) or --workflow <file>.`);
    await new FlowDb(store).store.execute(`UPDATE _flow_runs SET workflow_path = ? WHERE run_id = ?`, [recorded, runId]);
    await new FlowDb(store).store.close();

    // The real CLI in its own process (it closes the workflow's store when done), with no
    // --workflow: the run's recorded workflow file is loaded (issue 23).
    const rewind = spawnSync(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "rewind", runId, "b", "--db", db], { cwd: repo, encoding: "utf8", env: { ...process.env, FLOW_SNAPSHOTS: "on" } });
    expect(rewind.status, rewind.stderr + rewind.stdout).toBe(0);
    expect(rewind.stdout).toContain("rewinding to b attempt 1");
    expect(rewind.stdout).toContain(`flow resume ${runId}`);
    expect(existsSync(join(repo, "b.txt"))).toBe(false);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("one a\n");
    // The files the rewind replaced are kept on a ref of their own, listed as what they were.
    expect((await flow(repo, "snapshots", runId, "--db", db)).out).toMatch(new RegExp(`  [0-9a-f]{12}  before the rewind to b #1 at \\S+ \\(refs/flow/runs/${runId}/time\\.travel/\\S+\\)\n`));

    const revert = await flow(repo, "revert", runId, "b", "--attempt", "1", "--db", db);
    expect(revert.code, revert.out + revert.err).toBe(0);
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("one b\n");
    expect((await flow(repo, "revert", runId, "b", "--db", db)).code).toBe(2);

    const fork = await flow(repo, "fork", FIXTURE, runId, "b", "--input", '{"word":"two"}', "--run-id", "forked", "--json");
    expect(fork.code, fork.err).toBe(0);
    const started = fork.out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; nodeId?: string });
    expect(started.filter((e) => e.type === "TaskStarted").map((e) => e.nodeId)).toEqual(["b"]);
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("two b\n");
    // No workflow file: the forked run's, as it recorded it.
    const replay = await flow(repo, "replay", "forked", "--db", db, "--run-id", "replayed");
    expect(replay.code, replay.err).toBe(0);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("two a\n");
    // Both worked where the original run did (this test's process works elsewhere): their
    // snapshots are that repository's.
    for (const id of ["forked", "replayed"]) expect(gitIn(repo, "for-each-ref", "--format=%(refname)", `refs/flow/runs/${id}/`)).toMatch(new RegExp(`^refs/flow/runs/${id}/`));

    const gc = await flow(repo, "snapshots", runId, "--db", db, "--gc");
    expect(gc.out).toMatch(/Deleted [1-9]\d* snapshot ref/);
    expect((await flow(repo, "snapshots", runId, "--db", db)).out).toContain("has no snapshots");
  }, 120_000);

  it("snapshots --diff names a repository inside the workspace as one: cloned, then its HEAD moved by a commit there", async () => {
    const repo = tempRepo();
    const { runId, db } = await runFixture(() => import("./fixtures/vendor-workflow.js"), repo, { FLOW_TEST_LIBRARY: tempRepo() }, {});

    expect((await flow(repo, "snapshots", runId, "--db", db, "--diff", "vendor")).out).toContain("A deps/lib  (a git repository of its own: snapshots hold its commit, not its files)");
    // The commit wrote no file of the workspace: the snapshot after it still has the new commit.
    const fix = await flow(repo, "snapshots", runId, "--db", db, "--diff", "fix");
    expect(fix.out).toContain("fix changed 1 file");
    expect(fix.out).toContain("M deps/lib  (a git repository of its own: its HEAD moved)");
  });

  it("the command a rewind prints to resume the run names the store it was given, and works as printed", async () => {
    const repo = tempRepo();
    vi.stubEnv("FLOW_TEST_DB", join(tempDir(), "flow.db"));
    vi.stubEnv("FLOW_TEST_REPO", repo);
    onTestFinished(() => void vi.unstubAllEnvs());
    expect((await flow(repo, "up", FIXTURE, "--input", '{"word":"one"}', "--run-id", "tt1", "--quiet")).code).toBe(0);
    // It worked (and was snapshotted) in the CLI's working directory, not this test process's.
    expect(JSON.parse((await flow(repo, "runs", "tt1", "--workflow", FIXTURE, "--json")).out).run.rootDir).toBe(repo);

    // The workflow's store is not the project's default one: `flow resume tt1` alone would not find the run.
    const rewind = await flow(repo, "rewind", "tt1", "b", "--workflow", FIXTURE);
    expect(rewind.code, rewind.err).toBe(0);
    const printed = rewind.out.match(/is paused until you resume it \(b pending\): (.+)\n/)?.[1];
    expect(printed).toBe(`flow resume tt1 --workflow ${FIXTURE}`);
    expect((await flow(repo, "runs", "tt1", "--workflow", FIXTURE)).out).toContain(`rewound, waits to be resumed: ${printed}`);
    expect((await flow(repo, "resume", "tt1")).code).toBe(1); // the default store has no such run

    const [, ...argv] = parseShell(printed!) as string[];
    const resumed = await flow(repo, ...argv, "--quiet");
    expect(resumed.code, resumed.err).toBe(0);
    expect(JSON.parse(resumed.out).status).toBe("finished");
    expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("one b\n");
  }, 60_000);

  it("flow up starts the run's first snapshot before it loads the workflow file, and the run uses it", async () => {
    const repo = tempRepo();
    const dir = tempDir();
    // The real git behind a `git` first on PATH that logs when each command started (ms).
    const log = join(dir, "git.log");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    writeFileSync(join(dir, "git"), `#!/bin/sh\nprintf '%s %s\\n' "$(($(date +%s%N) / 1000000))" "$*" >> "${log}"\nexec "${realGit}" "$@"\n`);
    chmodSync(join(dir, "git"), 0o755);
    const loaded = join(dir, "loaded");
    const env = { PATH: `${dir}:${process.env.PATH}`, FLOW_SNAPSHOTS: "on", FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_REPO: repo, FLOW_TEST_LOADED: loaded };
    const up = flowProcess(["up", FIXTURE, "--input", '{"word":"early"}'], env, repo);
    expect(await up.exited, up.output()).toBe(0);
    const adds = readFileSync(log, "utf8").split("\n").filter((l) => / add -A -- /.test(l));
    // One whole-workspace add, started before the workflow module ran; the run's edges reused it
    // (the tasks' new files were added by name, as the watch named them).
    const whole = adds.filter((l) => l.endsWith(" add -A -- :/ :(top,exclude).flow"));
    expect(whole, adds.join("\n")).toHaveLength(1);
    expect(Number(whole[0]!.split(" ")[0])).toBeLessThan(Number(readFileSync(loaded, "utf8")));
    expect(adds.filter((l) => / add -A -- :\(literal\)a\.txt$/.test(l))).toHaveLength(1);
  }, 60_000);
});
