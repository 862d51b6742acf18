/**
 * Every change of a run's status goes through `statusChange` (core/engine/run-sql.ts), which
 * checks the lifecycle table (status.ts): no other statement writes a run's status, and the
 * paths a user reaches (resume, retryTask, time travel, cancel, continue-as-new) refuse an
 * illegal move with INVALID_TRANSITION and write nothing. A node's (task's) state goes
 * through `nodeChange` and its own table the same way; stopRun and the cancelRun RPC check
 * a stop against the run's table. On an in-memory PGlite store, so these could run in a
 * browser.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlowApi } from "../api/create-api.js";
import { createDomainHandler } from "../api/handler.js";
import { LocalGatewayHost } from "../api/local-host.js";
import { ensureUserTables, SchemaRegistry } from "../schema/index.js";
import { migrateStore, PGLITE_PARSERS, pgliteStatements, type StorePort } from "../store/index.js";
import { FlowDb } from "./flow-db.js";
import { retryTask } from "./retry-task.js";
import { stopRun } from "./run-control.js";
import { nodeChange, nodeSql, runSql, statusChange, WriteBatch } from "./run-sql.js";
import { runWorkflow } from "./run.js";
import { createDefaultEnv } from "./world.js";
import { timeTravel } from "../time-travel/index.js";
import type { FlowWorkflow } from "./types.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const schemas = { input: z.object({ round: z.number() }), out: z.object({ v: z.number() }) };

let pglite: PGlite;
let store: StorePort;
let api: ReturnType<typeof createFlowApi<typeof schemas, object>>;
let db: FlowDb;
let work: FlowWorkflow;
let chain: FlowWorkflow;

beforeAll(async () => {
  // An initialized empty cluster (no initdb, which takes seconds); a browser passes the
  // app's bundled seed instead (docs/app-browser.md "Storage").
  const { ensurePgliteSeed } = await import("../../node/store/pglite-seed.js");
  pglite = new PGlite({ loadDataDir: new Blob([readFileSync(await ensurePgliteSeed())]), parsers: PGLITE_PARSERS });
  store = { dialect: "postgres", ...pgliteStatements(pglite, () => {}), close: () => pglite.close() };
  await migrateStore(store, Date.now());
  const registry = new SchemaRegistry(schemas, "postgres");
  await ensureUserTables(store, registry);
  api = createFlowApi<typeof schemas, object>({ store, registry, env: createDefaultEnv(), activeRuns: new Set() }, {}, {});
  db = new FlowDb(api.db);
  work = api.flow(() => (
    <api.Workflow name="work">
      <api.Task id="a" output={api.outputs.out}>{() => ({ v: 1 })}</api.Task>
      <api.Task id="b" output={api.outputs.out}>{() => ({ v: 2 })}</api.Task>
    </api.Workflow>
  ));
  chain = api.flow((ctx) => (
    <api.Workflow name="chain">
      <api.Task id="a" output={api.outputs.out}>{() => ({ v: ctx.input.round })}</api.Task>
      {ctx.input.round < 1 ? <api.ContinueAsNew input={{ round: ctx.input.round + 1 }} /> : null}
    </api.Workflow>
  ));
});

afterAll(() => store.close());

/** The stored row's status and last change. */
const rowOf = async (runId: string) => {
  const row = (await runSql.get(store, runId))!;
  return { status: row.status, updatedAtMs: Number(row.updated_at_ms) };
};

function sources(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(sources(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test(-d)?\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

describe("a run's status", () => {
  it("is written by statusChange alone", () => {
    const writes: string[] = [];
    for (const file of ["core", "node", "sync", "browser"].flatMap((area) => sources(join(ROOT, area)))) {
      // Comments go first: core/store/port.ts shows such an UPDATE as an example of the port.
      const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
      for (const m of text.matchAll(/UPDATE\s+(?:_flow_runs|\$\{TABLES\.runs\})\s+SET\s(?:(?!WHERE)[^`"])*?\bstatus\s*=/g)) writes.push(`${relative(ROOT, file)}: ${m[0]}`);
    }
    expect(writes).toEqual(["core/engine/run-sql.ts: UPDATE ${TABLES.runs} SET status ="]);
  });

  it("changes only along the table, and an illegal change writes nothing", async () => {
    const r = await runWorkflow(work, { input: { round: 0 } });
    expect(r.status).toBe("finished");
    const before = await rowOf(r.runId);
    expect(() => statusChange(r.runId, "finished", "failed", before.updatedAtMs + 1)).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION", details: { runId: r.runId, from: "finished", to: "failed" } }));
    expect(await store.execute(...statusChange(r.runId, "finished", "running", before.updatedAtMs + 1))).toBe(1);
    expect((await rowOf(r.runId)).status).toBe("running");
  });

  it("refuses retryTask and time travel of a continued run, and keeps it continued", async () => {
    const first = await runWorkflow(chain, { input: { round: 0 } });
    expect(first.status).toBe("continued");
    const before = await rowOf(first.runId);
    await expect(retryTask(db, { runId: first.runId, nodeId: "a" })).rejects.toMatchObject({ code: "INVALID_TRANSITION", details: { from: "continued", to: "running" } });
    const rewind = await timeTravel(db, { runId: first.runId, nodeId: "a", restoreVcs: false }).catch((e: unknown) => e);
    expect(rewind).toMatchObject(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(await rowOf(first.runId)).toEqual(before);
    // the chain goes on in its next run
    expect((await runWorkflow(chain, { runId: first.nextRunId!, resume: true })).status).toBe("finished");
  });

  it("answers a resume of a finished run and a cancel of a cancelled one without writing, and refuses to cancel a finished run", async () => {
    const done = await runWorkflow(work, { input: { round: 0 } });
    const before = await rowOf(done.runId);
    expect(await runWorkflow(work, { runId: done.runId, resume: true })).toMatchObject({ status: "finished" });
    await expect(stopRun(db, done.runId, "cancel")).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    expect(await rowOf(done.runId)).toEqual(before);

    const cancelled = await runWorkflow(work, { input: { round: 0 }, signal: AbortSignal.abort() });
    expect(cancelled.status).toBe("cancelled");
    const stopped = await rowOf(cancelled.runId);
    expect(await stopRun(db, cancelled.runId, "cancel", { workflow: work })).toMatchObject({ status: "cancelled", how: "stopped" });
    expect(await rowOf(cancelled.runId)).toEqual(stopped);
  });

  it("still makes every legal move: retry and rewind of a finished run, resume of a cancelled one", async () => {
    const r = await runWorkflow(work, { input: { round: 0 } });
    expect(await retryTask(db, { runId: r.runId, nodeId: "b" })).toMatchObject({ success: true, resetNodes: ["b"] });
    expect((await rowOf(r.runId)).status).toBe("running");
    expect((await runWorkflow(work, { runId: r.runId, resume: true })).status).toBe("finished");

    expect(await timeTravel(db, { runId: r.runId, nodeId: "b", restoreVcs: false })).toMatchObject({ success: true });
    expect(await db.getRun(r.runId)).toMatchObject({ status: "paused", pauseReason: "rewind" });
    expect((await runWorkflow(work, { runId: r.runId, resume: true })).status).toBe("finished");

    const cancelled = await runWorkflow(work, { input: { round: 0 }, signal: AbortSignal.abort() });
    expect((await runWorkflow(work, { runId: cancelled.runId, resume: true })).status).toBe("finished");
  });
});

describe("a node's state", () => {
  it("is written by nodeChange alone", () => {
    const writes: string[] = [];
    for (const file of ["core", "node", "sync", "browser"].flatMap((area) => sources(join(ROOT, area)))) {
      const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
      for (const m of text.matchAll(/(?:INSERT\s+INTO|UPDATE)\s+(?:_flow_nodes|\$\{TABLES\.nodes\})(?!\w)/g)) writes.push(`${relative(ROOT, file)}: ${m[0]}`);
    }
    expect(writes).toEqual(["core/engine/run-sql.ts: INSERT INTO ${TABLES.nodes}"]);
  });

  it("changes only along the node table: an illegal move throws and adds nothing to the batch, a reset is written", async () => {
    const r = await runWorkflow(work, { input: { round: 0 } });
    const stored = async () => (await nodeSql.list(store, r.runId)).find((n) => n.node_id === "a")!;
    const before = await stored();
    expect(before.state).toBe("finished");
    const batch = new WriteBatch();
    expect(() => nodeChange(batch, r.runId, "finished", { nodeId: "a", iteration: 0, state: "failed", attempts: 1 }, Number(before.updated_at_ms) + 1)).toThrow(
      expect.objectContaining({ code: "INVALID_TRANSITION", details: { runId: r.runId, nodeId: "a", iteration: 0, from: "finished", to: "failed" } }),
    );
    expect(() => nodeChange(batch, r.runId, null, { nodeId: "z", iteration: 0, state: "in-progress" }, 1)).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(batch.size).toBe(0);
    expect(await stored()).toEqual(before);

    nodeChange(batch, r.runId, "finished", { nodeId: "a", iteration: 0, state: "pending", attempts: 1 }, Number(before.updated_at_ms) + 1);
    await batch.commit(store);
    expect(await stored()).toMatchObject({ state: "pending", attempts: 1 });
  });
});

describe("a stop request", () => {
  it("is checked against the run table by stopRun and the cancelRun RPC alike, naming the move refused", async () => {
    const done = await runWorkflow(work, { input: { round: 0 } });
    const before = await rowOf(done.runId);
    await expect(stopRun(db, done.runId, "cancel")).rejects.toMatchObject({ code: "INVALID_TRANSITION", details: { runId: done.runId, from: "finished", to: "cancelled" } });

    const host = new LocalGatewayHost({ workflows: { work } });
    const api = createDomainHandler({ host });
    const cancel = async (runId: string) => {
      const res = await api.fetch(new Request(`http://flow/v1/rpc/cancelRun`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId }) }));
      return { status: res.status, body: (await res.json()) as { ok: boolean; result?: unknown; error?: { code: string; details: unknown } } };
    };
    expect(await cancel(done.runId)).toMatchObject({ status: 409, body: { ok: false, error: { code: "INVALID_TRANSITION", details: { runId: done.runId, from: "finished", to: "cancelled" } } } });
    expect(await rowOf(done.runId)).toEqual(before);

    const cancelled = await runWorkflow(work, { input: { round: 0 }, signal: AbortSignal.abort() });
    const stopped = await rowOf(cancelled.runId);
    expect(await cancel(cancelled.runId)).toEqual({ status: 200, body: { ok: true, result: { runId: cancelled.runId, status: "cancelled" } } });
    expect(await rowOf(cancelled.runId)).toEqual(stopped);
  });

  it("to pause is checked by stopRun and the pauseRun RPC alike: the same refusal, the same answer, nothing written", async () => {
    const host = new LocalGatewayHost({ workflows: { work, chain } });
    const handler = createDomainHandler({ host });
    const pause = async (runId: string) => {
      const res = await handler.fetch(new Request(`http://flow/v1/rpc/pauseRun`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId }) }));
      return (await res.json()) as { ok: boolean; result?: { status: string }; error?: { code: string; details: unknown } };
    };
    const finished = (await runWorkflow(work, { input: { round: 0 } })).runId;
    const continued = (await runWorkflow(chain, { input: { round: 0 } })).runId;
    const cancelled = (await runWorkflow(work, { input: { round: 0 }, signal: AbortSignal.abort() })).runId;
    const paused = (await runWorkflow(work, { input: { round: 0 }, pauseSignal: AbortSignal.abort() })).runId;
    expect((await rowOf(continued)).status).toBe("continued");
    expect((await rowOf(paused)).status).toBe("paused");
    for (const runId of [finished, continued, cancelled]) {
      const before = await rowOf(runId);
      const direct = await stopRun(db, runId, "pause").then(() => null, (e: { code: string; message: string; details: unknown }) => ({ code: e.code, message: e.message, details: e.details }));
      expect(direct, before.status).toMatchObject({ code: "INVALID_TRANSITION", details: { runId, from: before.status, to: "paused" } });
      expect((await pause(runId)).error, before.status).toEqual(direct);
      expect(await rowOf(runId)).toEqual(before);
    }
    const before = await rowOf(paused);
    expect(await stopRun(db, paused, "pause")).toEqual({ runId: paused, status: "paused", how: "stopped" });
    expect(await pause(paused)).toEqual({ ok: true, result: { runId: paused, status: "paused" } });
    expect(await rowOf(paused)).toEqual(before);
  });
});
