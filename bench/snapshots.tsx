/**
 * Snapshot-cost benchmark (issue #22, docs/performance.md "Time-travel snapshots"): what time
 * travel costs on the hot path when the run's root is inside a git repository, as it is for
 * people who run coding agents. Snapshots on (FLOW_SNAPSHOTS unset), one JSON line per case:
 *
 *   npx tsx bench/snapshots.tsx                       # 10,000 committed files, 1,000 tasks, 20 edits, 5 rounds
 *   npx tsx bench/snapshots.tsx --files 1000 --tasks 200 --edits 10
 *   npx tsx bench/snapshots.tsx --cases compute --rounds 9  # one case (compute, host, agent-edit, snapshot, parallel-writes)
 *   npx tsx bench/snapshots.tsx --cases compute --files 1000 --node-modules 1500  # a JavaScript project
 *   npx tsx bench/snapshots.tsx --cases compute,host --nested  # folders of 10 files, three deep, as a source tree
 *   npx tsx bench/snapshots.tsx --cases compute --files 120000 --per-folder 1 --rounds 1  # more folders than a watch takes
 *
 * - `compute`: a Sequence of `--tasks` compute tasks that touch no file, in a repository of
 *   `--files` committed files vs the same run in a directory outside any repository, `--rounds`
 *   times, the two in turn (which goes first alternates); each round's repository is new, so its
 *   first snapshot reads the whole tree. `ratio` = the median of the rounds' repo / plain (the
 *   goal is <= 1.2); `firstAttemptMs`: when the first task started, after the run's start
 *   (medians; in the repository it waits for that first snapshot). Then each round runs both
 *   again in the same directories, as a host (a Gateway, the app) runs a workspace's next run:
 *   `againRatio`, the median of those repo / plain. The process has run in a repository before
 *   (the warm-up): what a process pays once, starting its git shell (a fork of the whole
 *   Node process, docs/performance.md), is measured per process by bench/first-run.tsx.
 * - `host`: the same Sequence started on a Gateway whose `workspaceRoot` is the directory, after
 *   it listened and sat idle for 300 ms (a Gateway takes its workspace's first snapshot when it
 *   listens), from `startRun` to the run's end; a new pair of directories each round (made
 *   before the warm-up, as for `compute`); `ratio` as for `compute`.
 * - `agent-edit`: a Sequence of `--edits` tasks, each editing one committed file with the
 *   built-in `write` tool (what an agent's tool call does); `snapshotMs` = the extra time per
 *   attempt in the repository (the goal is < 50 ms), `restored` = a rewind to the middle task
 *   gave that file back byte for byte.
 * - `snapshot`: the VCS port alone, `--edits` times: one committed file edited, then a snapshot
 *   (what an editing attempt's end costs, without the run around it); median and p90 in ms.
 *   Steadier than `agent-edit` on a busy machine.
 * - `parallel-writes`: a Parallel (4 at a time) of 10 x `--edits` tasks, each writing a new file,
 *   then again 1 ms later, so that tasks write while git reads the tree for another's snapshot;
 *   `extraMsPerTask` = (repository - outside) / tasks.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { createFlow, createGitVcs, FlowDb, Gateway, runWorkflow, timeTravel, write } from "durable-flow";
import { benchFile, benchFileContent, benchWorkspace } from "./support/repository.js";

const { values } = parseArgs({ options: { files: { type: "string" }, tasks: { type: "string" }, edits: { type: "string" }, cases: { type: "string" }, rounds: { type: "string" }, "node-modules": { type: "string" }, nested: { type: "boolean" }, "per-folder": { type: "string" } } });
const CASES = new Set((values.cases ?? "compute,host,agent-edit,snapshot,parallel-writes").split(","));
/** How long a Gateway sits idle after `listen()` before the `host` case starts its run. */
const HOST_IDLE_MS = 300;
const FILES = Number(values.files ?? 10_000);
const TASKS = Number(values.tasks ?? 1_000);
const EDITS = Number(values.edits ?? 20);
const ROUNDS = Number(values.rounds ?? 5);
/** Packages in an ignored `node_modules` (two directories each), as a JavaScript project has; 0 by default. */
const NODE_MODULES = Number(values["node-modules"] ?? 0);
const round = (n: number) => Math.round(n * 10) / 10;
delete process.env.FLOW_SNAPSHOTS;
/** Folders of 10 files, three deep, as a source tree has them (bench/support/repository.ts). */
const NESTED = values.nested ?? false;
/** Files per folder where not nested (100 by default; 1 gives a folder per file). */
const PER_FOLDER = Number(values["per-folder"] ?? 100);
const workspace = (repo: boolean) => benchWorkspace(FILES, repo, { nodeModules: NODE_MODULES, nested: NESTED, perFolder: PER_FOLDER });
/** The workspace's shape, in every case's line. */
const SHAPE = { files: FILES, ...(NODE_MODULES ? { nodeModules: NODE_MODULES } : {}), ...(NESTED ? { nested: true } : {}), ...(PER_FOLDER !== 100 ? { perFolder: PER_FOLDER } : {}) };

/**
 * A Sequence of `count` tasks (a Parallel of `parallel` at a time where given), its store in
 * `dir/.flow`; `body(i)` is task i's work, `firstAt()` when task 0 started.
 */
function sequenceIn(dir: string, count: number, body: (i: number) => Promise<void> | void, parallel?: number) {
  const { flow, Workflow, Task, Sequence, Parallel, outputs, db } = createFlow({ step: z.object({ i: z.number() }) }, { dbPath: join(dir, ".flow", "flow.db") });
  let firstAt = Number.NaN;
  const tasks = Array.from({ length: count }, (_, i) => (
    <Task key={i} id={`t${i}`} output={outputs.step}>
      {async () => {
        if (i === 0) firstAt = performance.now();
        await body(i);
        return { i };
      }}
    </Task>
  ));
  const wf = flow(() => <Workflow name="bench-snapshots">{parallel ? <Parallel maxConcurrency={parallel}>{tasks}</Parallel> : <Sequence>{tasks}</Sequence>}</Workflow>);
  return { wf, db, firstAt: () => firstAt };
}

/** Runs a Sequence (or a Parallel, `sequenceIn`) of `count` tasks rooted in `dir` (its store in `dir/.flow`); `body(i)` is task i's work. */
async function runIn(dir: string, count: number, body: (i: number) => Promise<void> | void, parallel?: number) {
  const { wf, db, firstAt } = sequenceIn(dir, count, body, parallel);
  const started = performance.now();
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, logDir: null, ...(parallel ? { maxConcurrency: parallel } : {}) });
  if (result.status !== "finished") throw new Error(`run ${result.status}`);
  return { wallMs: performance.now() - started, firstMs: firstAt() - started, runId: result.runId, db: new FlowDb(db) };
}

/** A Gateway whose workspace is `dir` runs the Sequence of `count` compute tasks once it has listened and idled HOST_IDLE_MS: from `startRun` to the run's end. */
async function hostRunIn(dir: string, count: number) {
  const gateway = new Gateway({ workspaceRoot: dir }).register("sequence", sequenceIn(dir, count, () => undefined).wf);
  await gateway.listen({ port: 0, host: "127.0.0.1" });
  try {
    await new Promise((resolve) => setTimeout(resolve, HOST_IDLE_MS));
    const started = performance.now();
    const { runId } = await gateway.host.startRun({ workflowKey: "sequence", input: {} });
    await gateway.host.activeRun(runId)?.done;
    const wallMs = performance.now() - started;
    const run = await gateway.host.db.requireRun(runId);
    if (run.status !== "finished") throw new Error(`run ${run.status}`);
    return wallMs;
  } finally {
    await gateway.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Every round's directories first: making a repository starts git processes, and a process
// started from Node slows Node's next writes to its memory (docs/performance.md), which the
// warm-up runs then absorb instead of a measured run.
const computeDirs = CASES.has("compute") ? Array.from({ length: ROUNDS }, () => ({ plain: workspace(false), repo: workspace(true) })) : [];
const hostDirs = CASES.has("host") ? Array.from({ length: ROUNDS }, () => ({ plain: workspace(false), repo: workspace(true) })) : [];
// Warm-up (module loading, JIT) on small runs outside any repository and in a small one.
await runIn(mkdtempSync(join(tmpdir(), "flow-bench-snap-warm-")), 200, () => undefined);
await runIn(benchWorkspace(100, true), 200, () => undefined);

if (CASES.has("compute")) {
  type Pair = { plain: number; repo: number };
  const rounds: Array<{ wall: Pair; first: Pair; again: Pair }> = [];
  for (const [r, dirs] of computeDirs.entries()) {
    const order = r % 2 === 0 ? (["plain", "repo"] as const) : (["repo", "plain"] as const);
    const pair = { wall: { plain: 0, repo: 0 }, first: { plain: 0, repo: 0 }, again: { plain: 0, repo: 0 } };
    for (const kind of order) ({ wallMs: pair.wall[kind], firstMs: pair.first[kind] } = await runIn(dirs[kind], TASKS, () => undefined));
    for (const kind of order) pair.again[kind] = (await runIn(dirs[kind], TASKS, () => undefined)).wallMs;
    rounds.push(pair);
  }
  const ratios = rounds.map(({ wall }) => wall.repo / wall.plain);
  console.log(
    JSON.stringify({
      case: "compute",
      ...SHAPE,
      tasks: TASKS,
      rounds: ROUNDS,
      wallMsPlain: round(median(rounds.map(({ wall }) => wall.plain))),
      wallMsRepo: round(median(rounds.map(({ wall }) => wall.repo))),
      ratio: round(median(ratios) * 100) / 100,
      ratios: ratios.map((x) => round(x * 100) / 100),
      firstAttemptMs: { plain: round(median(rounds.map(({ first }) => first.plain))), repo: round(median(rounds.map(({ first }) => first.repo))) },
      againRatio: round(median(rounds.map(({ again }) => again.repo / again.plain)) * 100) / 100,
    }),
  );
}

if (CASES.has("host")) {
  const rounds: Array<{ plain: number; repo: number }> = [];
  for (const [r, dirs] of hostDirs.entries()) {
    const wall = { plain: 0, repo: 0 };
    for (const kind of r % 2 === 0 ? (["plain", "repo"] as const) : (["repo", "plain"] as const)) wall[kind] = await hostRunIn(dirs[kind], TASKS);
    rounds.push(wall);
  }
  console.log(
    JSON.stringify({
      case: "host",
      ...SHAPE,
      tasks: TASKS,
      rounds: ROUNDS,
      wallMsPlain: round(median(rounds.map((w) => w.plain))),
      wallMsRepo: round(median(rounds.map((w) => w.repo))),
      ratio: round(median(rounds.map((w) => w.repo / w.plain)) * 100) / 100,
    }),
  );
}

if (CASES.has("agent-edit")) {
  const plainDir = workspace(false);
  const repoDir = workspace(true);
  const edit = (dir: string) => (i: number) => write.execute({ path: benchFile(i, NESTED, PER_FOLDER), content: `edited by t${i}\n` }, { rootDir: dir }).then(() => undefined);
  const editsPlain = await runIn(plainDir, EDITS, edit(plainDir));
  const editsRepo = await runIn(repoDir, EDITS, edit(repoDir));
  const middle = Math.floor(EDITS / 2);
  const path = join(repoDir, benchFile(middle, NESTED, PER_FOLDER));
  writeFileSync(path, "changed after the run\n");
  const r = await timeTravel(editsRepo.db, { runId: editsRepo.runId, nodeId: `t${middle}` });
  if (!r.success) throw new Error(r.error);
  const restored = readFileSync(path, "utf8") === benchFileContent(middle);
  console.log(
    JSON.stringify({
      case: "agent-edit",
      ...SHAPE,
      edits: EDITS,
      wallMsPlain: round(editsPlain.wallMs),
      wallMsRepo: round(editsRepo.wallMs),
      snapshotMs: round((editsRepo.wallMs - editsPlain.wallMs) / EDITS),
      restored,
    }),
  );
}

if (CASES.has("snapshot")) {
  const vcs = createGitVcs();
  const snapDir = workspace(true);
  await vcs.snapshot(snapDir, "refs/flow/bench/first");
  const times: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    // One file in each of 100 folders in turn, across the tree.
    writeFileSync(join(snapDir, benchFile((i % 100) * Math.floor(FILES / 100) + 1, NESTED, PER_FOLDER)), `edit ${i}\n`);
    const started = performance.now();
    await vcs.snapshot(snapDir, `refs/flow/bench/${i}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ case: "snapshot", ...SHAPE, edits: EDITS, medianMs: round(median(times)), p90Ms: round(times[Math.floor(times.length * 0.9)]!) }));
}

if (CASES.has("parallel-writes")) {
  const count = 10 * EDITS;
  const wall = { plain: 0, repo: 0 };
  for (const kind of ["plain", "repo"] as const) {
    const dir = workspace(kind === "repo");
    mkdirSync(join(dir, "out"));
    const writeTwice = async (i: number) => {
      writeFileSync(join(dir, "out", `${i}.txt`), `${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      writeFileSync(join(dir, "out", `${i}.txt`), `${i} again\n`);
    };
    wall[kind] = (await runIn(dir, count, writeTwice, 4)).wallMs;
  }
  console.log(JSON.stringify({ case: "parallel-writes", ...SHAPE, tasks: count, wallMsPlain: round(wall.plain), wallMsRepo: round(wall.repo), extraMsPerTask: round((wall.repo - wall.plain) / count) }));
}

// Removed only at the end: the watches of the rounds' repositories would count every deletion in the next run.
for (const dirs of [...computeDirs, ...hostDirs]) for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
