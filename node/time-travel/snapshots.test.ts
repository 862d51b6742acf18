import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { expect, it } from "vitest";
import { FlowDb } from "durable-flow";
import { attemptSnapshotsFor } from "../../core/engine/travel/snapshots.js";
import { sqliteBackend } from "../testing/backends.js";
import { gitIn, tempRepo } from "../vcs/testing.js";

it("snapshots a relative rootDir against the env's working directory, and records it absolute", async () => {
  const repo = tempRepo();
  writeFileSync(join(repo, "mine.txt"), "x");
  const { api } = await sqliteBackend.open({ step: z.object({ n: z.number() }) }, { env: { recordSnapshots: true, cwd: repo } });
  const db = new FlowDb(api.db);
  await db.store.execute(`INSERT INTO _flow_runs (run_id, status, created_at_ms, updated_at_ms) VALUES ('r1', 'running', 0, 0)`);
  const snaps = attemptSnapshotsFor(db.binding, "r1", ".")!;
  const pointer = await snaps.take("a", 0, 1, "start");
  expect(gitIn(repo, "ls-tree", "--name-only", pointer!).split("\n")).toContain("mine.txt");
  expect(gitIn(repo, "rev-parse", "refs/flow/runs/r1/a/0/1/start")).toBe(pointer);
  const [row] = await db.store.query<{ workspace_dir: string }>(`SELECT workspace_dir FROM _flow_runs WHERE run_id = 'r1'`);
  expect(row?.workspace_dir).toBe(repo);
});
