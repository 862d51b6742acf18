import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createFlow, FlowDb, startServer, type FlowServer } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { readSse } from "./testing.js";

const rootDir = fileURLToPath(new URL("./fixtures", import.meta.url));
let server: FlowServer;
let url: string;
let db: FlowDb;
const auth = { authorization: "Bearer tok" };

async function listening(s: FlowServer): Promise<string> {
  if (!s.listening) await new Promise((resolve) => s.once("listening", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
const close = (s: FlowServer) => new Promise<void>((resolve) => s.close(() => resolve()));

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth) {
  const res = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as any };
}

/** Waits for the run's event stream to end (the run finished, failed or was cancelled). */
async function untilEnded(runId: string) {
  return readSse(await fetch(`${url}/v1/runs/${runId}/events`, { headers: auth }), (e) => e.some((x) => x.event === "end"));
}
async function untilParked(runId: string) {
  await readSse(await fetch(`${url}/v1/runs/${runId}/events`, { headers: auth }), (e) => e.some((x) => x.event === "run.event" && (x.data as { type: string }).type === "RunWaiting"));
}

beforeAll(async () => {
  const dbPath = join(tempDir(), "flow.db");
  vi.stubEnv("FLOW_SERVER_TEST_DB", dbPath);
  db = new FlowDb(createFlow({}, { dbPath }).db);
  server = startServer({ port: 0, rootDir, authToken: "tok", db, hostname: "127.0.0.1" });
  url = await listening(server);
});
afterAll(() => {
  vi.unstubAllEnvs();
  return close(server);
});

describe("startServer", () => {
  it("listens on the port 0 picked, with SPEC's timeouts, /health open and every other route behind the bearer token", async () => {
    expect((server.address() as AddressInfo).port).toBeGreaterThan(0);
    expect([server.headersTimeout, server.requestTimeout]).toEqual([30_000, 60_000]);
    expect((await call("GET", "/health", undefined, {})).body).toMatchObject({ ok: true, protocol: 1 });
    for (const path of ["/v1/runs", "/metrics", "/v1/approvals", "/workflows"]) expect((await call("GET", path, undefined, {})).status).toBe(401);
    expect((await call("GET", "/v1/runs")).status).toBe(200);
  });

  it("starts workflows by path (one or many), streams their events, lists runs, and refuses paths outside rootDir", async () => {
    const one = await call("POST", "/v1/runs", { workflowPath: "greet.tsx", input: { name: "Ada" }, runId: "p1" });
    expect(one).toEqual({ status: 202, body: { ok: true, result: { runId: "p1", workflow: "greet.tsx" } } });
    const events = await untilEnded("p1");
    expect(events.filter((e) => e.event === "run.event").map((e) => (e.data as { type: string }).type)).toContain("RunFinished");
    expect((await call("GET", "/v1/runs/p1")).body.result).toMatchObject({ status: "finished", workflowKey: "greet.tsx", output: null });
    expect((await call("GET", "/v1/runs/p1/frames")).body.result).toMatchObject({ runId: "p1", frameNo: 1, tasks: [expect.objectContaining({ nodeId: "hello" })] });

    const many = await call("POST", "/v1/runs", { workflowPaths: ["./greet.tsx", "wait.tsx"], input: { name: "Bo" } });
    expect(many.status).toBe(202);
    expect(many.body.result.map((r: { workflow: string }) => r.workflow)).toEqual(["greet.tsx", "wait.tsx"]);
    await untilEnded(many.body.result[0].runId);
    await untilParked(many.body.result[1].runId);
    const listed = (await call("GET", "/v1/runs")).body.result.runs.map((r: { runId: string }) => r.runId);
    expect(listed).toEqual(expect.arrayContaining(["p1", ...many.body.result.map((r: { runId: string }) => r.runId)]));

    const before = (await db.listRuns()).length;
    for (const workflowPath of ["../start-server.ts", "/etc/passwd", join(rootDir, "..", "testing.ts")]) {
      expect(await call("POST", "/v1/runs", { workflowPath, input: {} })).toMatchObject({ status: 403, body: { ok: false, error: { code: "WORKFLOW_PATH_OUTSIDE_ROOT" } } });
    }
    expect((await call("POST", "/v1/rpc/launchRun", { workflow: "../start-server.ts" })).body.error.code).toBe("WORKFLOW_PATH_OUTSIDE_ROOT");
    expect((await call("POST", "/v1/runs", { workflowPath: "missing.tsx" })).body.error.code).toBe("WORKFLOW_NOT_FOUND");
    expect((await db.listRuns()).length).toBe(before);
  });

  it("lists and takes approvals, takes signals, resumes and cancels runs, with SSE resume from Last-Event-ID", async () => {
    await call("POST", "/v1/runs", { workflowPath: "wait.tsx", runId: "w1" });
    await untilParked("w1");
    expect((await call("GET", "/v1/approvals?runId=w1")).body.result).toEqual([expect.objectContaining({ runId: "w1", nodeId: "gate" })]);
    expect((await call("POST", "/v1/runs/w1/resume", {})).body.result).toEqual({ runId: "w1", status: expect.stringMatching(/running|waiting-approval/) });
    expect((await call("POST", "/v1/runs/w1/approvals/gate", { decision: "approve" })).body.result.status).toBe("accepted");
    expect((await call("POST", "/v1/runs/w1/signals/go", { payload: { note: "ship" }, deliveryId: "g-1" })).body.result).toEqual({ deliveryId: "g-1", status: "accepted" });
    const all = await untilEnded("w1");
    const seqs = all.filter((e) => e.event === "run.event").map((e) => Number(e.id));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const tail = await readSse(await fetch(`${url}/v1/runs/w1/events`, { headers: { ...auth, "last-event-id": String(seqs.at(-3)) } }), (e) => e.some((x) => x.event === "end"));
    expect(tail.filter((e) => e.event === "run.event").map((e) => Number(e.id))).toEqual(seqs.slice(-2));
    const after = await readSse(await fetch(`${url}/v1/runs/w1/events?afterSeq=${seqs.at(-2)}`, { headers: auth }), (e) => e.some((x) => x.event === "end"));
    expect(after.filter((e) => e.event === "run.event").map((e) => Number(e.id))).toEqual(seqs.slice(-1));
    const nothingMore = await readSse(await fetch(`${url}/v1/runs/w1/events`, { headers: { ...auth, "last-event-id": String(seqs.at(-1)) } }), (e) => e.some((x) => x.event === "end"));
    expect(nothingMore.map((e) => e.event)).toEqual(["end"]);

    await call("POST", "/v1/runs", { workflowPath: "wait.tsx", runId: "w2" });
    await untilParked("w2");
    expect((await call("POST", "/v1/runs/w2/cancel")).body.result).toEqual({ runId: "w2", status: "cancelled" });
  });

  it("exposes /metrics in Prometheus text with requests and run events", async () => {
    const res = await fetch(`${url}/metrics`, { headers: auth });
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(/flow_http_requests_total\{method="POST",status="202"\} \d+/);
    expect(text).toMatch(/flow_run_events_total\{type="RunFinished"\} \d+/);
    expect(text).toContain("flow_active_runs");
  });

  it("without db answers 501 for run and approval lists; FLOW_API_KEY is the token when authToken is unset; bodies over maxBodyBytes get 413", async () => {
    process.env.FLOW_API_KEY = "from-env";
    const bare = startServer({ port: 0, rootDir, maxBodyBytes: 64, hostname: "127.0.0.1" });
    delete process.env.FLOW_API_KEY;
    try {
      const base = await listening(bare);
      expect((await fetch(`${base}/v1/runs`)).status).toBe(401);
      const h = { authorization: "Bearer from-env" };
      expect(await (await fetch(`${base}/v1/runs`, { headers: h })).json()).toMatchObject({ ok: false, error: { code: "NOT_AVAILABLE" } });
      expect((await fetch(`${base}/v1/approvals`, { headers: h })).status).toBe(501);
      const big = await fetch(`${base}/v1/runs`, { method: "POST", headers: h, body: JSON.stringify({ workflowPath: "greet.tsx", input: { name: "x".repeat(100) } }) });
      expect([big.status, ((await big.json()) as any).error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    } finally {
      await close(bare);
    }
  });

  it("listens on port 7331 when no port is given", async () => {
    const fallback = startServer({ rootDir });
    try {
      // Either it listens on 7331, or something else on this machine holds 7331 and the bind
      // of exactly that port failed: both show the default.
      const outcome = await new Promise<{ port: number }>((resolve) => {
        fallback.once("listening", () => resolve({ port: (fallback.address() as AddressInfo).port }));
        fallback.once("error", (e: NodeJS.ErrnoException & { port?: number }) => resolve({ port: e.code === "EADDRINUSE" ? e.port! : -1 }));
      });
      expect(outcome.port).toBe(7331);
    } finally {
      if (fallback.listening) await close(fallback);
    }
  });

  it("closes with open event streams: they end, and the server stops", async () => {
    const other = startServer({ port: 0, rootDir, db, hostname: "127.0.0.1" });
    const base = await listening(other);
    const res = await fetch(`${base}/v1/runs/w1/events?afterSeq=0`); // w1 finished: replay then end
    await res.body!.cancel();
    const open = await fetch(`${base}/v1/api/stream`); // the change stream stays open
    const reading = readSse(open, () => false);
    await close(other);
    expect(other.listening).toBe(false);
    expect(await reading.then(() => "ended", () => "ended")).toBe("ended"); // cut with the server
  });
});
