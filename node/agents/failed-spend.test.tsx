/**
 * What a failed or cut agent attempt spent counts: its calls' tokens and cost are the attempt's
 * meta, so the run's usage (the console's header, `flow runs`) and the workflow's cost include them;
 * and what an attempt still running has spent so far is read from its events.
 */
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, FlowDb, HostedChatAgent, runWorkflow, type RunOptions } from "durable-flow";
import { tempDir } from "../testing/temp-dir.js";
import { main } from "../cli/main.js";
import { type ProviderServer, type ScriptedTurn, startProviderServer } from "./testing/provider-server.js";

const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

const PRICES = { "gpt-4o-mini": { input: 1, output: 2 } };

/**
 * One agent task ("ask", no retry, `timeoutMs` where given) against a model scripted by `turns`
 * (11 + 7 tokens per answer), run with `options` (given the store's path); returns the run, the
 * server and the attempt.
 */
async function ask(turns: ScriptedTurn[], timeoutMs: number | undefined, options: (server: ProviderServer, dbPath: string) => Partial<RunOptions> = () => ({})) {
  const server = await startProviderServer(turns);
  servers.push(server);
  const dir = tempDir("flow-failed-spend-");
  const dbPath = join(dir, "flow.db");
  const { flow, Workflow, Task, outputs, db } = createFlow({ weather: z.object({ city: z.string(), tempC: z.number() }) }, { dbPath });
  const agent = new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: server.url, apiKey: "k", api: "chat" });
  const wf = flow(() => (
    <Workflow name="weather">
      <Task id="ask" output={outputs.weather} agent={agent} retries={0} {...(timeoutMs ? { timeoutMs } : {})}>
        Weather in Oslo?
      </Task>
    </Workflow>
  ));
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, prices: PRICES, ...options(server, dbPath) });
  const flowDb = new FlowDb(db);
  const [attempt] = await flowDb.listAttempts(result.runId, "ask");
  return { result, server, attempt, usage: await flowDb.getRunUsage(result.runId), transcript: await flowDb.getTranscript(result.runId, "ask") };
}

/** Two answers that are no row, then one that streams for 3 s: the attempt is cut during the third call. */
const SLOW_THIRD: ScriptedTurn[] = [{ text: "I could not find it." }, { text: "Still nothing." }, { text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(" "), everyMs: 100 }];

it("records the tokens and cost of an agent attempt that failed, in the attempt and in the run's usage", async () => {
  // Four answers that are no row: the first and its three corrections.
  const { result, server, attempt, usage } = await ask(Array.from({ length: 4 }, () => ({ text: "I could not find the weather." })), undefined);
  expect(result).toMatchObject({ status: "failed", error: { code: "TASK_OUTPUT_INVALID" } });
  expect(server.requests).toHaveLength(4);
  expect(attempt).toMatchObject({ state: "failed", meta: { calls: 4, usage: { inputTokens: 44, outputTokens: 28 } } });
  expect(usage.total).toMatchObject({ inputTokens: 44, outputTokens: 28, attempts: 1 });
  expect(usage.total.costUsd).toBeCloseTo((44 * 1 + 28 * 2) / 1e6, 12);
  expect(usage.byNode.ask).toMatchObject({ inputTokens: 44, outputTokens: 28 });
});

it("records what an agent attempt its timeout cut had spent: the calls that returned", async () => {
  const { result, server, attempt, usage, transcript } = await ask(SLOW_THIRD, 1_000);
  expect(result).toMatchObject({ status: "failed", error: { code: "TASK_TIMEOUT" } });
  expect(server.requests).toHaveLength(3);
  // Three calls made; the third never answered, so its tokens are not known.
  expect(attempt).toMatchObject({ state: "failed", meta: { calls: 3, usage: { inputTokens: 22, outputTokens: 14 } } });
  expect(usage.total).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 1 });
  // The cut call says why it ended, not what the SDK made of the aborted stream.
  expect(transcript[0]!.generations.map((g) => g.error?.code ?? g.status)).toEqual(["finished", "finished", "TASK_TIMEOUT"]);
});

it("records what an agent attempt a cancel of its run cut had spent", async () => {
  const cancel = new AbortController();
  let asked: ReturnType<typeof setInterval> | undefined;
  const { result, attempt, usage } = await ask(SLOW_THIRD, undefined, (server) => {
    asked = setInterval(() => server.requests.length === 3 && cancel.abort(), 20);
    return { signal: cancel.signal };
  }).finally(() => clearInterval(asked));
  expect(result.status).toBe("cancelled");
  expect(attempt).toMatchObject({ state: "cancelled", meta: { calls: 3, usage: { inputTokens: 22, outputTokens: 14 } } });
  expect(usage.total).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 1 });
});

it("shows what an attempt still running has spent so far: the calls that returned, before the attempt ends", async () => {
  const cancel = new AbortController();
  let asked: ReturnType<typeof setInterval> | undefined;
  let seen: { running: Awaited<ReturnType<FlowDb["getRunningSpend"]>>; stored: Awaited<ReturnType<FlowDb["getRunUsage"]>>; cli: string; json: { runningSpend: unknown }; list: string; node: string } | undefined;
  const { result, usage } = await ask(SLOW_THIRD, undefined, (server, dbPath) => {
    // During the third call, which streams for 3 s, once the run loop has flushed the second's end
    // (TRANSCRIPT_FLUSH_MS, 50 ms): read the run as another process would, then cancel.
    asked = setInterval(() => {
      if (server.requests.length !== 3 || seen) return;
      clearInterval(asked);
      const db = new FlowDb(createFlow({}, { dbPath }).db);
      const out: string[] = [];
      const io = (into: string[]) => ({ stdout: (t: string) => void into.push(t), stderr: (t: string) => void into.push(t), cwd: ".", env: { NO_COLOR: "1" }, isTTY: false });
      const json: string[] = [];
      void (async () => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const [runId] = (await db.listRuns({ status: "running" })).map((r) => r.runId);
        const [running, stored] = await Promise.all([db.getRunningSpend(runId!), db.getRunUsage(runId!)]);
        await main(["runs", runId!, "--db", dbPath], io(out));
        await main(["runs", runId!, "--json", "--db", dbPath], io(json));
        const list: string[] = [];
        await main(["runs", "--db", dbPath], io(list));
        const node: string[] = [];
        await main(["runs", runId!, "--node", "ask", "--db", dbPath], io(node));
        seen = { running, stored, cli: out.join(""), json: JSON.parse(json.join("")), list: list.join(""), node: node.join("") };
      })().finally(() => cancel.abort());
    }, 20);
    return { signal: cancel.signal };
  }).finally(() => clearInterval(asked));
  expect(result.status).toBe("cancelled");
  // The store counts none of it yet: the attempt has no meta until it ends.
  expect(seen!.stored.total.attempts).toBe(0);
  expect(seen!.running).toEqual([{ nodeId: "ask", iteration: 0, attempt: 1, inputTokens: 22, outputTokens: 14, totalTokens: 36, cacheReadTokens: 0, reasoningTokens: 0, costUsd: expect.closeTo((22 * 1 + 14 * 2) / 1e6, 12) }]);
  expect(seen!.json.runningSpend).toEqual(seen!.running);
  expect(seen!.cli).toMatch(/ask .*22 in \/ 14 out tokens, <\$0\.0001 so far/);
  expect(seen!.cli).toContain("Agents: 22 in / 14 out tokens, <$0.0001 so far over 1 attempt still running (child runs included)");
  expect(seen!.node).toMatch(/^Attempt 1 · running {2}22 in \/ 14 out tokens, <\$0\.0001 so far$/m);
  expect(seen!.list).toMatch(/ running +\S+ {2}22 in \/ 14 out tokens, <\$0\.0001 so far {2}weather/);
  // Ended (cut by the cancel), the store has it, and nothing is running.
  expect(usage.total).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 1 });
});
