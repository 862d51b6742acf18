/**
 * @module e2e/support/seed
 * Data for browser tests and screenshots, written through a real app Gateway (its RPC) and its
 * store: finished, waiting and cancelled runs of the app's workflows, an approval, memory
 * facts and notes, scores, and crons.
 */
import { bindWorkflows, createMemoryStore, createScorer, scoreRuns } from "durable-flow";
import { helloWorkflows } from "../../examples/app-workflows.js";
import type { AppGateway } from "./gateway.js";

/** The runs `seedAppData` made, by what they show. */
export interface SeededRuns {
  /** `hello` runs, finished. */
  finished: string[];
  /** A `release` run waiting on its `ship` approval. */
  waiting: string;
  /** A `release` run approved and finished. */
  released: string;
  /** A `pipeline` run of 12 tasks, finished. */
  pipeline: string;
  /** A `release` run cancelled while it built. */
  cancelled: string;
}

/**
 * Calls an RPC method of the Gateway; throws on an error envelope.
 * @example
 * const { runId } = await rpc<{ runId: string }>(gw.url, "launchRun", { workflow: "hello", input: { name: "Ada" } });
 */
export async function rpc<T>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(`${url}/v1/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: { code: string; message: string } };
  if (!body.ok) throw new Error(`${method} failed: ${body.error?.code} ${body.error?.message}`);
  return body.result as T;
}

/**
 * Waits until the run's status is one of `statuses` (polling its row: a status change of a run
 * this Gateway executes has no other handle here).
 * @example
 * await waitForStatus(gw.url, runId, ["finished"]);
 */
export async function waitForStatus(url: string, runId: string, statuses: string[], ms = 30_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const { status } = await rpc<{ status: string }>(url, "getRun", { runId });
    if (statuses.includes(status)) return status;
    if (Date.now() > until) throw new Error(`Run ${runId} is ${status}, not ${statuses.join(" or ")}, after ${ms} ms.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Fills an app Gateway with something to look at.
 * @example
 * const runs = await seedAppData(gw);
 * await page.goto(`${gw.url}/runs/${runs.waiting}`);
 */
export async function seedAppData(gw: AppGateway): Promise<SeededRuns> {
  const launch = async (workflow: string, input: Record<string, unknown>) => (await rpc<{ runId: string }>(gw.url, "launchRun", { workflow, input, options: { startedBy: { harness: "e2e" } } })).runId;
  const finished = [await launch("hello", { name: "Ada" }), await launch("hello", { name: "Grace" }), await launch("hello", { name: "Linus" })];
  const waiting = await launch("release", { service: "api", shards: 3, workMs: 0 });
  const released = await launch("release", { service: "web", shards: 2, workMs: 0 });
  const pipeline = await launch("pipeline", { tasks: 12 });
  const cancelled = await launch("release", { service: "billing", workMs: 60_000 });
  await waitForStatus(gw.url, released, ["waiting-approval"]);
  await rpc(gw.url, "submitApproval", { runId: released, nodeId: "ship", decision: "approve", note: "Looks good" });
  await rpc(gw.url, "cancelRun", { runId: cancelled });
  await Promise.all([
    ...finished.map((id) => waitForStatus(gw.url, id, ["finished"])),
    waitForStatus(gw.url, waiting, ["waiting-approval"]),
    waitForStatus(gw.url, released, ["finished"]),
    waitForStatus(gw.url, pipeline, ["finished"]),
    waitForStatus(gw.url, cancelled, ["cancelled"]),
  ]);

  // Memory and scores through the store (a second connection to the Gateway's SQLite file).
  const { hello } = bindWorkflows(helloWorkflows, { dbPath: gw.dbPath });
  const memory = createMemoryStore(hello.db);
  await memory.setFact({ kind: "user", id: "ada" }, "timezone", "Europe/London");
  await memory.setFact({ kind: "user", id: "ada" }, "preferences", { theme: "dark", digest: "weekly" });
  await memory.setFact({ kind: "workflow", id: "release" }, "last-shipped", { service: "web", at: "2026-11-24" });
  await memory.saveNote({ namespace: { kind: "user", id: "ada" }, body: "Prefers release summaries in the morning, in one message.", tags: ["preference"], author: "ada" });
  await memory.saveNote({ namespace: { kind: "workflow", id: "release" }, body: "The api service needs 3 shards; web ships with 2.", tags: ["release"], author: "ops" });
  await memory.saveNote({ namespace: { kind: "workflow", id: "release" }, body: "Approvals after 18:00 wait for the morning.", tags: ["policy"], author: "ops" });
  const greeting = createScorer({ id: "greeting-length", name: "Greeting length", description: "Longer greetings score higher (1 at 20 characters).", score: ({ output }) => Math.min(1, String((output as { text?: string }).text ?? "").length / 20) });
  const polite = createScorer({ id: "polite", name: "Polite", description: "1 when the greeting ends with an exclamation mark.", score: ({ output }) => (String((output as { text?: string }).text ?? "").endsWith("!") ? 1 : 0) });
  await scoreRuns(hello.db, { scorers: { greeting, polite }, runIds: finished });

  await rpc(gw.url, "cronCreate", { cronId: "nightly-release", workflow: "release", schedule: "0 3 * * *", input: { service: "api" } });
  await rpc(gw.url, "cronCreate", { cronId: "hourly-hello", workflow: "hello", schedule: "0 * * * *", input: { name: "cron" }, enabled: false });
  return { finished, waiting, released, pipeline, cancelled };
}
