/**
 * Time-travel benchmark: a git repository of 10,000 files and a 100-task run whose tasks each
 * edit, create and delete files; then the cost of snapshots on the hot path and of rewinding
 * and reverting. One JSON line per measurement on stdout.
 *
 *   npx tsx bench/time-travel.tsx                 # 10,000 files, 100 tasks
 *   npx tsx bench/time-travel.tsx --files 1000 --tasks 20
 *
 * Lines: `run` (wallMs of the run in the repository and of the same run outside any
 * repository, snapshotMs = the difference per snapshot, two per task), `rewind` (timeTravel to
 * the first, middle and last task: wall time, files the restore changed), `revert`
 * (revertToAttempt of the middle task), `rewind-rows` (restoreVcs false: the rows alone).
 */
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { createFlow, FlowDb, revertToAttempt, runWorkflow, timeTravel } from "durable-flow";
import { benchWorkspace } from "./support/repository.js";

const { values } = parseArgs({ options: { files: { type: "string" }, tasks: { type: "string" } } });
const FILES = Number(values.files ?? 10_000);
const TASKS = Number(values.tasks ?? 100);
const round = (n: number) => Math.round(n * 10) / 10;
/** A directory of FILES files in folders of 100 (a repository when `repo`). */
const workspace = (repo: boolean) => benchWorkspace(FILES, repo);

async function runIn(dir: string) {
  const { flow, Workflow, Task, Sequence, outputs, db } = createFlow({ step: z.object({ i: z.number() }) }, { dbPath: join(dir, ".flow", "flow.db"), env: { recordSnapshots: true } });
  const wf = flow(() => (
    <Workflow name="bench-time-travel">
      <Sequence>
        {Array.from({ length: TASKS }, (_, i) => (
          <Task key={i} id={`t${i}`} output={outputs.step}>
            {() => {
              // Each task edits a file, creates one and deletes one.
              writeFileSync(join(dir, `d${i % (FILES / 100)}`, `f${i}.txt`), `edited by t${i}\n`);
              writeFileSync(join(dir, `new-${i}.txt`), `created by t${i}\n`);
              unlinkSync(join(dir, `d${Math.floor((FILES - 1 - i) / 100)}`, `f${FILES - 1 - i}.txt`));
              return { i };
            }}
          </Task>
        ))}
      </Sequence>
    </Workflow>
  ));
  const started = performance.now();
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, logDir: null });
  if (result.status !== "finished") throw new Error(`run ${result.status}`);
  return { wallMs: performance.now() - started, runId: result.runId, db: new FlowDb(db) };
}

const plain = await runIn(workspace(false));
const repoDir = workspace(true);
const inRepo = await runIn(repoDir);
console.log(JSON.stringify({ case: "run", files: FILES, tasks: TASKS, wallMsRepo: round(inRepo.wallMs), wallMsPlain: round(plain.wallMs), snapshotMs: round((inRepo.wallMs - plain.wallMs) / (2 * TASKS)) }));

const { db, runId } = inRepo;
for (const target of [TASKS - 1, Math.floor(TASKS / 2), 0]) {
  const started = performance.now();
  const r = await timeTravel(db, { runId, nodeId: `t${target}` });
  const ms = performance.now() - started;
  if (!r.success) throw new Error(r.error);
  console.log(JSON.stringify({ case: "rewind", files: FILES, tasks: TASKS, target: `t${target}`, resetNodes: r.resetNodes.length, ms: round(ms) }));
}
const middle = (await db.listAttempts(runId, `t${Math.floor(TASKS / 2)}`)).find((a) => a.vcsPointer)!;
let started = performance.now();
const reverted = await revertToAttempt(db, { runId, nodeId: `t${Math.floor(TASKS / 2)}`, iteration: 0, attempt: middle.attempt });
if (!reverted.success) throw new Error(reverted.error);
console.log(JSON.stringify({ case: "revert", files: FILES, tasks: TASKS, target: `t${Math.floor(TASKS / 2)}`, ms: round(performance.now() - started) }));
started = performance.now();
const rows = await timeTravel(db, { runId, nodeId: "t0", restoreVcs: false });
if (!rows.success) throw new Error(rows.error);
console.log(JSON.stringify({ case: "rewind-rows", files: FILES, tasks: TASKS, target: "t0", ms: round(performance.now() - started) }));
