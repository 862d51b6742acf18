import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";
import { createFlow, FlowDb } from "../../index.js";
import { tempRepo } from "../../vcs/testing.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `flow up --serve` of the approval fixture as run s1, once its gateway listens. */
async function serveApproval() {
  const dir = tempDir("flow-up-serve-");
  const child = spawn(
    process.execPath,
    [join(ROOT, "node/cli/bin.mjs"), "up", join(ROOT, "node/cli/fixtures/approve-workflow.tsx"), "--serve", "--port", "0", "--run-id", "s1", "--input", '{"what":"v2"}', "--log-dir", "none"],
    { cwd: dir, env: { ...process.env, FLOW_TEST_DB: join(dir, "flow.db"), NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  const said = { out: "", err: "" };
  child.stdout!.on("data", (d: Buffer) => (said.out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (said.err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const url = await until(() => /serving approve-workflow on (http:\/\/\S+) \(run s1\)/.exec(said.err)?.[1]);
  const rpc = async (method: string, params: unknown) => {
    const res = await fetch(`${url}/v1/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
    return (await res.json()) as { ok: boolean; result?: unknown; error?: unknown };
  };
  const pending = await until(async () => {
    const r = (await rpc("listApprovals", {})) as { result: Array<{ runId: string; nodeId: string }> };
    return r.result.length ? r.result : undefined;
  });
  return { said, exited, url, rpc, pending };
}

describe("flow up --serve", () => {
  it("runs the workflow inside a gateway, takes its approval over RPC, and exits when the run ends", async () => {
    const { said, exited, rpc, pending } = await serveApproval();
    const out = () => said.out;
    expect(pending).toEqual([expect.objectContaining({ runId: "s1", nodeId: "ok" })]);
    expect(out()).toContain("waits for an approval");
    // The console's "Started by": the run says flow up started it.
    expect(await rpc("getRun", { runId: "s1" })).toMatchObject({ ok: true, result: { startedBy: { harness: "flow up" } } });
    expect(await rpc("submitApproval", { runId: "s1", nodeId: "ok", decision: "approve" })).toMatchObject({ ok: true });
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 20_000))])).toBe(0);
    expect(out()).toMatch(/"status": "finished"/);
    expect(out()).toMatch(/"shipped": "v2"/);
  }, 60_000);

  it("stays a moment after the run ends while a client watches, so it can read the run's end", async () => {
    const { exited, url, rpc } = await serveApproval();
    // A console following the run's events, as the app does; it reads the run once the end arrives.
    const stream = await fetch(`${url}/v1/api/runs/s1/events/stream`);
    const reader = stream.body!.getReader();
    expect(await rpc("submitApproval", { runId: "s1", nodeId: "ok", decision: "approve" })).toMatchObject({ ok: true });
    for (let seen = ""; !seen.includes("RunFinished"); ) seen += new TextDecoder().decode((await reader.read()).value);
    await new Promise((r) => setTimeout(r, 300)); // the console's own pace: a render, a debounce
    const run = (await (await fetch(`${url}/v1/api/runs/s1?view=summary`)).json()) as { result: { status: string } };
    expect(run.result.status).toBe("finished");
    await reader.cancel();
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 20_000))])).toBe(0);
  }, 60_000);

  it("follows a run that continues as new through the runs the gateway starts, and exits with the last one's result", async () => {
    const dir = tempDir("flow-up-serve-");
    const child = spawn(
      process.execPath,
      [join(ROOT, "node/cli/bin.mjs"), "up", join(ROOT, "examples/runs.tsx"), "--serve", "--port", "0", "--log-dir", "none", "--input", '{"queue":[101,102,103,104,105],"batchSize":2}'],
      { cwd: dir, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 30_000))])).toBe(0);
    expect(out.match(/● run continued as /g)).toHaveLength(2);
    const result = JSON.parse(out.slice(out.lastIndexOf("\n{\n") + 1));
    expect(result).toMatchObject({ status: "finished", output: { merged: 4, rejected: [103] } });
    // The chain's last run, finished: none of it was left paused when the gateway closed.
    const db = new FlowDb(createFlow({}, { dbPath: join(dir, ".flow/examples/runs.db") }).db);
    const runs = await db.store.query<{ status: string }>("SELECT status FROM _flow_runs WHERE parent_run_id IS NULL ORDER BY created_at_ms");
    expect(runs.map((r) => r.status)).toEqual(["continued", "continued", "finished"]);
    await db.store.close();
  }, 60_000);

  it("with --root-dir, the runs the gateway starts work there, and the working directory is not snapshotted", async () => {
    const cwd = tempRepo();
    const root = tempRepo();
    const db = join(tempDir(), "flow.db");
    // The workflow, with a UI whose entry is the project's (in the working directory).
    mkdirSync(join(cwd, "ui"));
    writeFileSync(join(cwd, "ui", "app.ts"), `const n: number = 41;\ndocument.body.dataset.answer = String(n + 1);\n`);
    const child = spawn(
      process.execPath,
      [join(ROOT, "node/cli/bin.mjs"), "up", join(ROOT, "node/cli/fixtures/ship-ui.tsx"), "--serve", "--port", "0", "--run-id", "s1", "--input", '{"what":"v2"}', "--log-dir", "none", "--root-dir", root],
      { cwd, env: { ...process.env, FLOW_TEST_DB: db, NO_COLOR: "1", FLOW_SNAPSHOTS: "on" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const url = await until(() => /serving ship-ui on (http:\/\/\S+) \(run s1\)/.exec(err)?.[1]);
    const page = await (await fetch(`${url}/workflows/ship-ui`)).text();
    const script = /src="(assets\/app-[^"]+\.js)"/.exec(page)?.[1];
    expect(await (await fetch(`${url}/workflows/ship-ui/${script}`)).text()).toContain("String(42)");
    const rpc = async (method: string, params: unknown) => (await (await fetch(`${url}/v1/rpc/${method}`, { method: "POST", body: JSON.stringify(params) })).json()) as { ok: boolean; result?: unknown };
    // A second run launched from the console, as a person would re-run the workflow.
    expect(await rpc("launchRun", { workflow: "ship-ui", input: { what: "v3" }, runId: "s2" })).toMatchObject({ ok: true });
    await until(async () => ((await rpc("listApprovals", {})).result as unknown[]).length === 2 || undefined);
    for (const runId of ["s2", "s1"]) expect(await rpc("submitApproval", { runId, nodeId: "ok", decision: "approve" })).toMatchObject({ ok: true });
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 20_000))])).toBe(0);

    const store = new FlowDb(createFlow({}, { dbPath: db }).db);
    for (const runId of ["s1", "s2"]) expect((await store.requireRun(runId)).rootDir).toBe(root);
    await store.store.close();
    expect(existsSync(join(root, ".git", "flow"))).toBe(true);
    expect(existsSync(join(cwd, ".git", "flow"))).toBe(false);
  }, 60_000);
});
