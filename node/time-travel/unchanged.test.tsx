import { chmodSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { bash, FlowDb, runWorkflow, timeTravel, write } from "durable-flow";
import { sqliteBackend, tempDir } from "../testing/backends.js";
import { createGitVcs } from "../vcs/git.js";
import { gitIn, tempRepo, treePicture } from "../vcs/testing.js";

const schemas = { step: z.object({ n: z.number() }) };
const skip = (p: string) => p === ".flow";

/** The real git behind a script that logs each command's name: how many git processes Flow started. */
function countingGit() {
  const dir = tempDir("flow-git-shim-");
  const log = join(dir, "calls");
  writeFileSync(log, "");
  const gitPath = join(dir, "git-counting");
  writeFileSync(gitPath, `#!/bin/sh\necho "$1" >> "${log}"\nexec git "$@"\n`);
  chmodSync(gitPath, 0o755);
  return { gitPath, calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

/** Each attempt's start and end pointers, by node id. */
async function edges(db: FlowDb, runId: string): Promise<Record<string, { start: string | null; end: string | null }>> {
  const rows = await db.store.query<{ node_id: string; start: string | null; end: string | null }>(`SELECT node_id, vcs_start_pointer AS start, vcs_pointer AS "end" FROM _flow_attempts WHERE run_id = ?`, [runId]);
  return Object.fromEntries(rows.map((r) => [r.node_id, { start: r.start, end: r.end }]));
}

async function open(env: Record<string, unknown>) {
  const opened = await sqliteBackend.open(schemas, { env: { recordSnapshots: true, ...env } });
  return { api: opened.api, db: new FlowDb(opened.api.db) };
}

describe("snapshots when nothing changed", () => {
  it("runs 100 compute tasks in a repository without a git process per attempt, and sees a change made between runs", async () => {
    const repo = tempRepo();
    const { gitPath, calls } = countingGit();
    const { api, db } = await open({ vcs: createGitVcs({ gitPath }) });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="computes">
        <Sequence>
          {Array.from({ length: 100 }, (_, i) => (
            <Task key={i} id={`t${i}`} output={outputs.step}>
              {() => ({ n: i })}
            </Task>
          ))}
        </Sequence>
      </Workflow>
    ));
    const first = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(first.status).toBe("finished");
    // Finding the repository and the run's first snapshot; nothing per attempt (before: 4 per edge, 800).
    const afterFirst = calls();
    expect(afterFirst.length).toBeLessThanOrEqual(6);
    const pointers = new Set(Object.values(await edges(db, first.runId)).flatMap((e) => [e.start, e.end]));
    expect(pointers.size).toBe(1);
    expect([...pointers][0]).toMatch(/^[0-9a-f]{40}$/);

    // The next run in this process only names the same commit on a ref of its own, without a git process.
    const second = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(calls().slice(afterFirst.length)).toEqual([]);
    expect(new Set((await db.listAttempts(second.runId)).map((a) => a.vcsPointer))).toEqual(pointers);
    expect(gitIn(repo, "rev-parse", `refs/flow/runs/${second.runId}/t0/0/1/start`)).toBe([...pointers][0]);

    // A file the user wrote between runs is in the next run's snapshots.
    writeFileSync(join(repo, "between.txt"), "mine\n");
    const third = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(gitIn(repo, "show", `${(await edges(db, third.runId)).t0!.start}:between.txt`)).toBe("mine");
  });

  it("snapshots an attempt that wrote with plain fs, the write tool or another process, and restores each one byte for byte", async () => {
    const repo = tempRepo();
    const { api, db } = await open({});
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const seen: Record<string, Record<string, string>> = {};
    const task = (id: string, work: () => unknown) => (
      <Task id={id} output={outputs.step}>
        {async () => {
          seen[id] = treePicture(repo, skip);
          await work();
          return { n: 1 };
        }}
      </Task>
    );
    const blob = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    const wf = flow(() => (
      <Workflow name="writers">
        <Sequence>
          {task("idle1", () => undefined)}
          {task("fs", () => {
            mkdirSync(join(repo, "a/b"), { recursive: true });
            writeFileSync(join(repo, "a/b/data.bin"), blob);
            writeFileSync(join(repo, "run.sh"), "#!/bin/sh\n");
            chmodSync(join(repo, "run.sh"), 0o755);
            unlinkSync(join(repo, "README.md"));
          })}
          {task("idle2", () => undefined)}
          {/* Into the directory made two attempts ago: its watch must be in place. */}
          {task("tool", () => write.execute({ path: "a/b/notes.md", content: "# notes\n" }, { rootDir: repo }))}
          {task("idle3", () => undefined)}
          {task("process", () => bash.execute({ cmd: "sh", args: ["-c", "mkdir -p c/d && printf 'x\\000y' > c/d/e.bin && chmod 644 run.sh && rm a/b/data.bin"] }, { rootDir: repo }))}
          {task("idle4", () => undefined)}
        </Sequence>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(result.status).toBe("finished");
    const final = treePicture(repo, skip);
    const by = await edges(db, result.runId);
    // An idle attempt reuses the pointer before it; each writer got a snapshot of its own.
    for (const [idle, before] of [["idle2", "fs"], ["idle3", "tool"], ["idle4", "process"]] as const) {
      expect(by[idle]!.start).toBe(by[before]!.end);
      expect(by[idle]!.end).toBe(by[idle]!.start);
    }
    expect(new Set(["fs", "tool", "process"].map((id) => by[id]!.end)).size).toBe(3);

    for (const nodeId of ["idle4", "process", "idle3", "tool", "idle2", "fs", "idle1"]) {
      // The `bash` call of "process" is a journaled side effect (tools in a task's code are bound
      // to its attempt): going back across it takes `force`.
      const r = await timeTravel(db, { runId: result.runId, nodeId, force: true });
      expect(r).toMatchObject({ success: true, vcsRestored: true });
      expect(treePicture(repo, skip), `tree at the start of ${nodeId}`).toEqual(seen[nodeId]);
    }
    expect(seen.idle4).toEqual(final);
  });

  it("takes the run's first snapshot before the first task runs, even while that snapshot is slow (the task's writes stay out of its start)", async () => {
    const repo = tempRepo();
    writeFileSync(join(repo, "tracked.txt"), "before\n");
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-q", "-m", "tracked");
    // The first snapshot's `git add` is held until the first task has written (marker), or 300 ms
    // have passed: were the task to run before that snapshot read the tree, the snapshot would
    // hold the task's writes, and its start pointer with it.
    const shim = tempDir("flow-git-shim-");
    const marker = join(shim, "task-wrote");
    const gitPath = join(shim, "git-holding");
    writeFileSync(gitPath, `#!/bin/sh\nif [ "$1" = add ] && [ ! -f "${shim}/held" ]; then touch "${shim}/held"; i=0; while [ ! -f "${marker}" ] && [ $i -lt 30 ]; do sleep 0.01; i=$((i+1)); done; fi\nexec git "$@"\n`);
    chmodSync(gitPath, 0o755);
    const { api, db } = await open({ vcs: createGitVcs({ gitPath }) });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="first-writes">
        <Sequence>
          <Task id="writer" output={outputs.step}>
            {() => {
              writeFileSync(join(repo, "tracked.txt"), "after\n");
              writeFileSync(join(repo, "new.txt"), "new\n");
              unlinkSync(join(repo, "README.md"));
              writeFileSync(marker, "");
              return { n: 1 };
            }}
          </Task>
          <Task id="idle" output={outputs.step}>
            {() => ({ n: 2 })}
          </Task>
        </Sequence>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(result.status).toBe("finished");
    const by = await edges(db, result.runId);
    expect(gitIn(repo, "show", `${by.writer!.start}:tracked.txt`)).toBe("before");
    expect(gitIn(repo, "ls-tree", "--name-only", by.writer!.start!).split("\n").sort()).toEqual([".gitignore", "README.md", "tracked.txt"]);
    expect(gitIn(repo, "show", `${by.writer!.end}:tracked.txt`)).toBe("after");
    expect(gitIn(repo, "show", `${by.writer!.end}:new.txt`)).toBe("new");
    expect(by.idle).toEqual({ start: by.writer!.end, end: by.writer!.end });
    const r = await timeTravel(db, { runId: result.runId, nodeId: "writer" });
    expect(r).toMatchObject({ success: true, vcsRestored: true });
    expect(readFileSync(join(repo, "tracked.txt"), "utf8")).toBe("before\n");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# repo\n");
  });

  it("puts the files a failed attempt wrote in its retry's start snapshot", async () => {
    const repo = tempRepo();
    const { api, db } = await open({});
    const { flow, Workflow, Task, outputs } = api;
    let tries = 0;
    const wf = flow(() => (
      <Workflow name="retry">
        <Task id="flaky" output={outputs.step} retries={1}>
          {() => {
            if (++tries === 1) {
              writeFileSync(join(repo, "partial.txt"), "half\n");
              throw new Error("boom");
            }
            return { n: tries };
          }}
        </Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {}, rootDir: repo });
    expect(result.status).toBe("finished");
    const rows = await db.store.query<{ attempt: number; start: string }>(`SELECT attempt, vcs_start_pointer AS start FROM _flow_attempts WHERE run_id = ? ORDER BY attempt`, [result.runId]);
    expect(rows).toHaveLength(2);
    expect(gitIn(repo, "ls-tree", "--name-only", rows[0]!.start)).not.toContain("partial.txt");
    expect(gitIn(repo, "show", `${rows[1]!.start}:partial.txt`)).toBe("half");
  });
});

describe("snapshot notices", () => {
  it("says nothing for a workspace git ignores (the app's store folder) and takes no snapshot there", async () => {
    const repo = tempRepo();
    const root = join(repo, ".flow", "app");
    mkdirSync(root, { recursive: true });
    const warnings: string[] = [];
    const { api, db } = await open({ warn: (message: string) => void warnings.push(message) });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="app">
        <Sequence>
          {[0, 1, 2].map((i) => (
            <Task key={i} id={`t${i}`} output={outputs.step}>
              {() => (writeFileSync(join(root, `f${i}.txt`), "x"), { n: i })}
            </Task>
          ))}
        </Sequence>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {}, rootDir: root });
    expect(result.status).toBe("finished");
    expect(warnings).toEqual([]);
    expect((await db.listAttempts(result.runId)).every((a) => a.vcsPointer === null)).toBe(true);
    expect(gitIn(repo, "for-each-ref", "refs/flow")).toBe("");
  });

  it("says once, with what to do, that a workspace too large to watch is read at every edge, and still snapshots each edge exactly", async () => {
    const watched = tempRepo();
    const tooLarge = tempRepo();
    for (const repo of [watched, tooLarge]) {
      for (const dir of ["a", "b", "c"]) {
        mkdirSync(join(repo, dir));
        writeFileSync(join(repo, dir, "file.txt"), `${dir}\n`);
      }
      gitIn(repo, "add", "-A");
      gitIn(repo, "commit", "-q", "-m", "dirs");
    }
    const warnings: string[] = [];
    const { gitPath, calls } = countingGit();
    const run = async (repo: string, maxWatchedDirs?: number) => {
      const { api, db } = await open({ vcs: createGitVcs({ gitPath, ...(maxWatchedDirs ? { maxWatchedDirs } : {}) }), warn: (message: string) => void warnings.push(message) });
      const { flow, Workflow, Task, Sequence, outputs } = api;
      const wf = flow(() => (
        <Workflow name="wide">
          <Sequence>
            <Task id="compute" output={outputs.step}>
              {() => ({ n: 0 })}
            </Task>
            <Task id="writes" output={outputs.step}>
              {() => (writeFileSync(join(repo, "b", "file.txt"), "written\n"), { n: 1 })}
            </Task>
          </Sequence>
        </Workflow>
      ));
      const result = await runWorkflow(wf, { input: {}, rootDir: repo });
      expect(result.status).toBe("finished");
      return { db, runId: result.runId };
    };

    // Watched (the default budget): the compute task costs no git process, and nothing is said.
    await run(watched);
    expect(warnings).toEqual([]);
    const afterWatched = calls().length;

    // Four directories (the top and a, b, c) against a budget of three: every edge is a git add.
    const first = await run(tooLarge, 3);
    expect(calls().slice(afterWatched).filter((c) => c === "add").length).toBeGreaterThanOrEqual(4);
    await run(tooLarge, 3);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Snapshots of ${tooLarge} read the whole tree at every task attempt`);
    expect(warnings[0]).toContain("more than 3 directories to watch (the maxWatchedDirs it was given)");
    expect(warnings[0]).toContain("FLOW_SNAPSHOTS=off");
    // Read each time, the snapshots are still exact: the write is in the end snapshot, not the start.
    const e = await edges(first.db, first.runId);
    expect(gitIn(tooLarge, "show", `${e.writes!.start}:b/file.txt`)).toBe("b");
    expect(gitIn(tooLarge, "show", `${e.writes!.end}:b/file.txt`)).toBe("written");
  });

  it("reports a snapshot that keeps failing once per process, with what to do", async () => {
    const repo = tempRepo();
    // A file where git keeps Flow's refs: every update-ref under refs/flow fails.
    writeFileSync(join(repo, ".git", "refs", "flow"), "not a directory\n");
    const warnings: string[] = [];
    const { api } = await open({ warn: (message: string) => void warnings.push(message) });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="failing">
        <Sequence>
          {[0, 1, 2].map((i) => (
            <Task key={i} id={`t${i}`} output={outputs.step}>
              {() => (writeFileSync(join(repo, `f${i}.txt`), "x"), { n: i })}
            </Task>
          ))}
        </Sequence>
      </Workflow>
    ));
    for (let run = 0; run < 2; run++) expect((await runWorkflow(wf, { input: {}, rootDir: repo })).status).toBe("finished");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`could not snapshot ${repo}`);
    expect(warnings[0]).toContain("FLOW_SNAPSHOTS=off");
  });
});
