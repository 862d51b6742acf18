/**
 * The app's workflows fill every view (examples/app-workflows.tsx): `newsletter` runs `draft`
 * as a child run (its scorer grades it), waits for a person's headline and for the signal
 * `send`. Driven through the domain API the app's views read, in the Gateway `npm start` runs
 * (real HTTP over loopback, SQLite) and in the browser's engine (the same handler over PGlite).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { startBrowserEngine } from "../browser/worker/engine.js";
import { ensurePgliteSeed } from "../node/store/pglite-seed.js";
import { createAppGateway } from "../scripts/app-gateway.js";
import { appWorkflows } from "./app-workflows.js";

/** A domain API call: the answer's `result`, or a throw with the error's code. */
type Call = <T = any>(method: "GET" | "POST", path: string, body?: unknown) => Promise<T>;

const callOver =
  (fetcher: (req: Request) => Promise<Response>): Call =>
  async <T>(method: "GET" | "POST", path: string, body?: unknown) => {
    const res = await fetcher(new Request(`http://flow.test${path}`, { method, headers: { "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
    const envelope = (await res.json()) as { ok: boolean; result?: T; error?: { code: string; message: string } };
    if (!envelope.ok) throw new Error(`${method} ${path}: ${envelope.error?.code} ${envelope.error?.message}`);
    return envelope.result as T;
  };

/** Polls `read` until `ok` holds of its answer (the host runs the run in this process). */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Wait {
  nodeId: string;
  kind: string;
  status: string;
  name: string | null;
  request: { prompt?: string; schema?: { properties?: Record<string, unknown> } };
  resolution: Record<string, unknown> | null;
}

/** Runs `newsletter` to its end as a newcomer would in the app, checking what each view reads. */
async function newsletterScenario(call: Call): Promise<void> {
  const workflows = await call<{ key: string; description?: string }[]>("GET", "/v1/api/workflows");
  expect(workflows.map((w) => w.key).sort()).toEqual(["assistant", "draft", "hello", "newsletter", "pipeline", "release"]);
  expect(workflows.find((w) => w.key === "newsletter")?.description).toMatch(/child run .*headline.*signal send/);

  const { runId } = await call<{ runId: string }>("POST", "/v1/api/runs", { workflow: "newsletter", input: { topic: "Flow 1.0", words: 30 } });
  const waits = (kind: string, status = "pending") => call<Wait[]>("GET", `/v1/api/waits?runId=${encodeURIComponent(runId)}&kind=${kind}&status=${status}`);

  // The Human tasks tab: the headline form, with the draft the child run wrote in its prompt.
  const [human] = await until(() => waits("human"), (w) => w.length === 1, "the human task edit");
  expect(human).toMatchObject({ nodeId: "edit", kind: "human", status: "pending" });
  expect(Object.keys(human!.request.schema?.properties ?? {})).toEqual(["headline"]);

  // Parent and child: the run row of the child names its parent; the Subflow's attempt names the child.
  // The run parks when only waits are left (its session ends), a moment after the wait is written.
  const parent = await until(
    () => call<{ status: string; nodes: { nodeId: string; attempts: { meta?: Record<string, unknown> }[] }[] }>("GET", `/v1/api/runs/${encodeURIComponent(runId)}`),
    (run) => run.status !== "running",
    "the run to park",
  );
  expect(parent.status).toBe("waiting-approval");
  const childRunId = parent.nodes.find((n) => n.nodeId === "draft")?.attempts[0]?.meta?.childRunId as string;
  expect(childRunId).toBe(`${runId}/draft@0`);
  const child = await call<{ workflowKey: string; status: string; parentRunId: string; output: { text: string; words: number; asked: number } }>("GET", `/v1/api/runs/${encodeURIComponent(childRunId)}`);
  expect(child).toMatchObject({ workflowKey: "draft", status: "finished", parentRunId: runId, output: { asked: 30 } });
  expect(child.output.text.split(/\s+/).length).toBe(child.output.words);
  expect(child.output.words).toBeGreaterThanOrEqual(30);
  expect(human!.request.prompt).toContain(child.output.text);
  const { runs } = await call<{ runs: { runId: string; parentRunId: string | null }[] }>("GET", "/v1/api/runs");
  expect(runs.find((r) => r.runId === childRunId)?.parentRunId).toBe(runId);

  // Scores: the child's task graded live by its scorer.
  const scores = await call<{ runId: string; nodeId: string; scorerId: string; scorerName: string; score: number; reason: string | null }[]>("GET", `/v1/api/scores?runId=${encodeURIComponent(childRunId)}`);
  expect(scores.map(({ nodeId, scorerId, scorerName, score, reason }) => ({ nodeId, scorerId, scorerName, score, reason }))).toEqual([
    { nodeId: "write", scorerId: "on-length", scorerName: "On length", score: 30 / child.output.words, reason: `${child.output.words} words for 30 asked` },
  ]);

  // A person gives the headline; the run then waits for the signal, whose form "Send a signal" reads.
  await call("POST", "/v1/api/human-tasks", { runId, nodeId: "edit", value: { headline: "Flow 1.0 is out" } });
  const [signal] = await until(() => waits("signal"), (w) => w.length === 1, "the signal send");
  expect(signal).toMatchObject({ nodeId: "send", kind: "signal", name: "send", status: "pending" });
  expect(Object.keys(signal!.request.schema?.properties ?? {})).toEqual(["list"]);
  expect(await call("POST", "/v1/api/signals", { name: "send", runId, payload: { list: "weekly" } })).toMatchObject({ status: "accepted" });

  const done = await until(() => call<{ status: string; output: unknown }>("GET", `/v1/api/runs/${encodeURIComponent(runId)}`), (r) => r.status === "finished", "the newsletter to finish");
  expect(done.output).toMatchObject({ list: "weekly", headline: "Flow 1.0 is out", words: child.output.words });
  const decided = await call<Wait[]>("GET", `/v1/api/waits?runId=${encodeURIComponent(runId)}&status=any`);
  expect(decided.map((w) => [w.nodeId, w.kind, w.status]).sort()).toEqual([
    ["edit", "human", "settled"],
    ["send", "signal", "settled"],
  ]);
}

describe("the app's workflows", () => {
  it("fill the child-run, score, human-task and signal views in the Gateway of npm start", async () => {
    const gateway = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-app-workflows-")), "flow.db") });
    try {
      const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await newsletterScenario(callOver((req) => fetch(req.url.replace("http://flow.test", base), req)));
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it("fill the same views in the browser's engine (PGlite, no shell tools)", async () => {
    const loadDataDir = new Blob([gunzipSync(readFileSync(await ensurePgliteSeed()))]);
    const engine = await startBrowserEngine({ name: "flow", storage: "memory", loadDataDir, workflows: appWorkflows });
    try {
      await newsletterScenario(callOver((req) => engine.handler.fetch(req)));
    } finally {
      await engine.close();
    }
  }, 90_000);
});
