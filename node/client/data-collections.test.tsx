/**
 * The data layer against a real Gateway over loopback: the data client's header merge (on the
 * API and the change stream), live collections kept current by the change stream, optimistic
 * writes confirmed by it, and the registry's ownership rules.
 */
import { QueryClient } from "@tanstack/query-core";
import { EventSource } from "eventsource";
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { createFlow, Gateway, HostedChatAgent } from "durable-flow";
import { createCollections, createDataClient, type FlowCollections } from "durable-flow/data";
import { startProviderServer } from "durable-flow/testing";
import { memoryStoreOf } from "../../core/memory/index.js";
import { startTestGateway } from "../server/gateway-testing.js";
import { tempDir } from "../testing/backends.js";
import { until } from "./testing.js";

const open: FlowCollections[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describe("createDataClient", () => {
  it("merges headers into API calls and the change stream; the mode's token wins over a conflicting authorization", async () => {
    const t = await startTestGateway({ auth: { mode: "trusted-proxy" } });
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: t.url }, headers: { "x-user-id": "ana", "x-user-scopes": "*" } });
    const { runId } = await data.api.launchRun({ workflow: "greet" });
    expect((await data.api.getRun(runId)).triggeredBy).toBe("user:ana");
    const summary = await data.api.getRunSummary(runId);
    expect(summary).toMatchObject({ runId, workflowKey: "greet", triggeredBy: "user:ana" });
    expect(summary).not.toHaveProperty("nodes");
    const statuses: string[] = [];
    data.stream.onStatus((s) => statuses.push(s));
    data.stream.start();
    await until(() => data.stream.status, (s) => s === "online", "the stream online");
    data.close();
    expect(data.stream.status).toBe("closed");
    await expect(data.api.listRuns()).rejects.toMatchObject({ code: "GATEWAY_CLIENT_CLOSED" });
    const anonymous = createDataClient({ mode: { kind: "local", apiBaseUrl: t.url } });
    await expect(anonymous.api.listRuns()).rejects.toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    anonymous.close();

    const secured = await startTestGateway({ auth: { mode: "token", tokens: { good: { role: "operator", scopes: ["*"] } } } });
    const withToken = createDataClient({ mode: { kind: "local", apiBaseUrl: secured.url, token: "good" }, headers: { Authorization: "Bearer bad" }, EventSource: EventSource as never });
    expect(await withToken.api.listWorkflows()).toHaveLength(3);
    withToken.stream.start();
    await until(() => withToken.stream.status, (s) => s === "online", "the EventSource stream online");
    withToken.close();
  });
});

describe("createCollections", () => {
  it("loads rows, shows writes at once, and follows the engine through the change stream", async () => {
    const t = await startTestGateway();
    const cols = createCollections({ kind: "local", apiBaseUrl: t.url }, new QueryClient());
    open.push(cols);
    expect(await cols.connect()).toBe("online");
    await Promise.all([cols.runs.preload(), cols.workflows.preload(), cols.crons.preload(), cols.approvals.preload()]);
    expect(cols.workflows.toArray.map((w) => w.key).sort()).toEqual(["deploy", "greet", "slow"]);

    // launch: the row is there before the call answers, then the engine's own row replaces it
    const launching = cols.launch({ workflow: "deploy", runId: "d1", input: { ref: "pr-1" } });
    expect(cols.runs.get("d1")).toMatchObject({ status: "running", workflowKey: "deploy" });
    await launching;
    await until(() => cols.runs.get("d1")?.status, (s) => s === "waiting-event", "d1 waiting");
    const run = cols.run("d1");
    const events = cols.runEvents("d1");
    const nodes = cols.nodes("d1");
    await Promise.all([run.preload(), events.preload(), nodes.preload()]);
    const before = events.size;

    // signal: shows running at once, and the run finishes; every per-run collection follows
    const signalled = cols.signal({ name: "go", runId: "d1", payload: { sha: "abc" } });
    expect(cols.runs.get("d1")?.status).toBe("running");
    await signalled;
    await until(() => cols.runs.get("d1")?.status, (s) => s === "finished", "d1 finished");
    await until(() => run.get("d1")?.status, (s) => s === "finished", "run(d1) finished");
    const stored = await t.gateway.host.db.listEvents("d1");
    await until(() => events.size, (n) => n === stored.length, "all events of d1");
    expect(events.size).toBeGreaterThan(before);
    expect([...events.keys()].sort((a, b) => a - b)).toEqual(stored.map((e) => e.seq));
    expect(nodes.toArray.find((n) => n.nodeId === "ship")?.state).toBe("finished");

    const tree = cols.runTree("d1");
    await tree.preload();
    expect(tree.toArray.map((task) => task.key).sort()).toEqual(["go#0", "ship#0"]);
    const { store, env } = t.gateway.host.db.binding;
    await memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() }).saveNote({ namespace: "workflow:deploy", body: "Ship on green only" });
    const docs = cols.docs("workflow:deploy");
    await docs.preload();
    expect(docs.toArray.map((d) => d.body)).toEqual(["Ship on green only"]);

    // memory facts written by a task are picked up when its run finishes
    await cols.memoryFacts.preload();
    await memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() }).setFact("user:ana", "theme", "dark");
    await cols.launch({ workflow: "greet" });
    await until(() => cols.memoryFacts.get("user:ana/theme")?.value, (v) => v === "dark", "the fact");

    // cancel: shows cancelled at once and stays so
    const { runId: parked } = await cols.launch({ workflow: "deploy" });
    await until(() => cols.runs.get(parked)?.status, (s) => s === "waiting-event", "parked waiting");
    const cancelling = cols.cancel(parked);
    expect(cols.runs.get(parked)?.status).toBe("cancelled");
    expect(await cancelling).toEqual({ runId: parked, status: "cancelled" });
    expect(cols.runs.get(parked)?.status).toBe("cancelled");

    // a refused write rolls back and throws the gateway's error
    await expect(cols.cancel("d1")).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    expect(cols.runs.get("d1")?.status).toBe("finished");

    // crons follow the stream too
    await cols.data.api.createCron({ cronId: "nightly", workflow: "greet", schedule: "0 3 * * *" });
    await until(() => cols.crons.has("nightly"), (v) => v, "the cron row");

    // the rows equal the database's
    const dbRuns = (await t.gateway.host.db.listRuns({ limit: 100 })).map((r) => [r.runId, r.status]).sort();
    expect(cols.runs.toArray.map((r) => [r.runId, r.status]).sort()).toEqual(dbRuns);
  });

  it("follows a streamed generation by fetching only the run's new events, not its row", async () => {
    const answer = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
    const sent: number[] = [];
    const model = await startProviderServer([{ text: JSON.stringify({ answer }), everyMs: 5 }], { onSend: (e) => void (e.data.includes('"content":"') && sent.push(e.atMs)) });
    const dbPath = join(tempDir("flow-live-"), "flow.db");
    const { flow, Workflow, Task, outputs } = createFlow({ answer: z.object({ answer: z.string() }) }, { dbPath });
    const agent = new HostedChatAgent({ id: "counter", model: "gpt-4o-mini", baseURL: model.url, apiKey: "k", api: "chat", nativeStructuredOutput: false });
    const gateway = new Gateway({ workspaceRoot: tempDir("flow-live-root-") });
    gateway.register("count", flow(() => <Workflow name="count"><Task id="ask" output={outputs.answer} agent={agent}>Count.</Task></Workflow>));
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const fetched: string[] = [];
      const data = createDataClient({ mode: { kind: "local", apiBaseUrl: url }, fetch: (input, init) => (fetched.push(new URL(String(input)).pathname), fetch(input, init)) });
      const reasons: string[] = [];
      data.stream.subscribe((e) => void (e.type === "change" && e.change.runId === "c1" && reasons.push(e.change.reason)));
      const cols = createCollections(data, new QueryClient());
      open.push(cols);
      await cols.connect();
      const events = cols.runEvents("c1");
      const run = cols.run("c1");
      await cols.launch({ workflow: "count", runId: "c1" });
      await Promise.all([events.preload(), run.preload()]);
      await until(() => run.get("c1")?.status, (s) => s === "finished", "c1 finished");
      const stored = await gateway.host.db.listEvents("c1");
      await until(() => events.size, (n) => n === stored.length, "every event of c1");
      const streamed = events.toArray.filter((e) => e.type === "AgentTextDelta").map((e) => (e as { text: string }).text).join("");
      expect(streamed).toBe(JSON.stringify({ answer }));
      // `onSend` saw each word written, in order (the role chunk's empty content included).
      expect(sent.length).toBe(61);
      expect([...sent].sort((a, b) => a - b)).toEqual(sent);
      const agentChanges = reasons.filter((r) => r.startsWith("Agent")).length;
      const otherChanges = reasons.length - agentChanges;
      expect(agentChanges).toBeGreaterThan(otherChanges + 2);
      // The run row is read on load and for changes other than the transcript's, never per streamed flush.
      const rowReads = fetched.filter((p) => p === "/v1/api/runs/c1").length;
      expect(rowReads).toBeLessThanOrEqual(otherChanges + 1);
      expect(fetched.filter((p) => p === "/v1/api/runs/c1/events").length).toBeGreaterThan(agentChanges / 3);
      cols.close();
      data.close();
    } finally {
      await gateway.close();
      await model.close();
    }
  });

  it("loads a run the workspace does not have as no rows, not as a failed collection (its page says not found)", async () => {
    const t = await startTestGateway();
    const cols = createCollections({ kind: "local", apiBaseUrl: t.url }, new QueryClient());
    open.push(cols);
    const [run, nodes, events, tree] = [cols.run("nope"), cols.nodes("nope"), cols.runEvents("nope"), cols.runTree("nope")];
    await Promise.all([run.preload(), nodes.preload(), events.preload(), tree.preload()]);
    for (const c of [run, nodes, events, tree]) {
      expect(c.status).toBe("ready");
      expect(c.size).toBe(0);
      expect(c.utils.isError).toBe(false);
    }
    // Another read of the run still says why it is absent.
    await expect(cols.data.api.getRun("nope")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });

  it("refuses a multiplayer mode without its workspace, and leaves a data client it did not build open", async () => {
    const qc = new QueryClient();
    expect(() => createCollections({ kind: "multiplayer", apiBaseUrl: "http://127.0.0.1:1", electricBaseUrl: "http://127.0.0.1:2", workspaceId: "" }, qc)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    const t = await startTestGateway();
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: t.url } });
    const cols = createCollections(data, qc);
    await cols.runs.preload();
    cols.close();
    cols.close();
    expect(data.closed).toBe(false);
    expect(await data.api.listWorkflows()).toHaveLength(3);
    expect(qc.getQueryCache().findAll({ queryKey: ["durable-flow", t.url] })).toEqual([]);
    const owned = createCollections({ kind: "local", apiBaseUrl: t.url }, qc);
    owned.close();
    expect(owned.data.closed).toBe(true);
    data.close();
  });
});
