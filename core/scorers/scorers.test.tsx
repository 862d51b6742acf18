import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentLike,
  aggregateScores,
  createLlmJudge,
  createScorer,
  isSampled,
  listScores,
  runWorkflow,
  scoreAttempt,
  scoreRuns,
} from "durable-flow";
import { bindingOf } from "durable-flow/core";
import { testBackends } from "../../node/testing/backends.js";
import { counterIds, fakeClock, rejection } from "../memory/testing.js";

const schemas = {
  input: z.object({ question: z.string() }),
  answer: z.object({ text: z.string(), words: z.number() }),
};

const length = createScorer({ id: "length", name: "Length", description: "words / 10", score: ({ output }) => (output as { words: number }).words / 10 });

/** A judge agent that answers like a chat model: text with a fenced JSON verdict. */
function judgeAgent(answer: (prompt: string) => string): AgentLike & { prompts: string[] } {
  const prompts: string[] = [];
  return { id: "judge-1", prompts, generate: async (args) => (prompts.push(String(args?.prompt)), { text: answer(String(args?.prompt)) }) };
}

describe("createScorer and the LLM judge", () => {
  it("accepts a number or a ScoreResult and rejects anything else with SCORER_FAILED", async () => {
    expect(await length.score({ input: null, output: { words: 7 } })).toEqual({ score: 0.7 });
    const withReason = createScorer({ id: "r", name: "R", description: "", score: async () => ({ score: 1, reason: "ok", meta: { a: 1 } }) });
    expect(await withReason.score({ input: 1, output: 2 })).toEqual({ score: 1, reason: "ok", meta: { a: 1 } });
    const nan = createScorer({ id: "nan", name: "NaN", description: "", score: () => Number.NaN });
    expect((await rejection(nan.score({ input: 1, output: 2 }))).code).toBe("SCORER_FAILED");
    const throws = createScorer({ id: "boom", name: "Boom", description: "", score: () => { throw new Error("bad"); } });
    const e = await rejection(throws.score({ input: 1, output: 2 }));
    expect(e.code).toBe("SCORER_FAILED");
    expect(e.message).toContain("boom");
    expect(() => createScorer({ id: "", name: "x", description: "", score: () => 1 })).toThrow(/id/);
  });

  it("asks the judge with instructions and the template, and reads its JSON verdict", async () => {
    const judge = judgeAgent(() => 'Looks right.\n```json\n{"score": 0.8, "reason": "mostly complete"}\n```');
    const scorer = createLlmJudge({
      id: "helpful",
      name: "Helpfulness",
      description: "0-1",
      judge,
      instructions: "Grade helpfulness from 0 to 1.",
      promptTemplate: ({ input, output }) => `Q: ${input}\nA: ${JSON.stringify(output)}`,
    });
    expect(await scorer.score({ input: "2+2?", output: { text: "4" } })).toEqual({ score: 0.8, reason: "mostly complete", meta: { judge: "judge-1" } });
    expect(judge.prompts[0]).toContain("Grade helpfulness from 0 to 1.");
    expect(judge.prompts[0]).toContain('Q: 2+2?\nA: {"text":"4"}');
    const vague = createLlmJudge({ id: "vague", name: "V", description: "", judge: judgeAgent(() => "I think it is good."), instructions: "", promptTemplate: () => "" });
    expect((await rejection(vague.score({ input: 1, output: 1 }))).code).toBe("SCORER_FAILED");
  });
});

describe("sampling", () => {
  const attempt = (i: number) => ({ runId: `run-${i % 7}`, nodeId: `node-${i}`, iteration: 0, attempt: 1 });

  it("grades all by default, none with none, and about `rate` of attempts with ratio, deterministically", () => {
    const n = 4000;
    expect(Array.from({ length: n }, (_, i) => isSampled(undefined, attempt(i), "s")).every(Boolean)).toBe(true);
    expect(Array.from({ length: n }, (_, i) => isSampled({ type: "none" }, attempt(i), "s")).some(Boolean)).toBe(false);
    const picked = Array.from({ length: n }, (_, i) => isSampled({ type: "ratio", rate: 0.25 }, attempt(i), "s"));
    const share = picked.filter(Boolean).length / n;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
    expect(Array.from({ length: n }, (_, i) => isSampled({ type: "ratio", rate: 0.25 }, attempt(i), "s"))).toEqual(picked);
    expect(Array.from({ length: n }, (_, i) => isSampled({ type: "ratio", rate: 0 }, attempt(i), "s")).some(Boolean)).toBe(false);
    expect(Array.from({ length: n }, (_, i) => isSampled({ type: "ratio", rate: 1 }, attempt(i), "s")).every(Boolean)).toBe(true);
  });
});

describe.each(testBackends)("scores on $name", (backend) => {
  async function open() {
    const clock = fakeClock();
    const { api } = await backend.open(schemas, { env: { clock, newId: counterIds("r") } });
    const warnings: Array<{ message: string; details?: Record<string, unknown> }> = [];
    const { store } = bindingOf(api.db);
    return { api, clock, warnings, env: { store, clock, warn: (message: string, details?: Record<string, unknown>) => void warnings.push({ message, details }) } };
  }

  it("stores a live score row per sampled scorer with the attempt's data", async () => {
    const { api, env, clock } = await open();
    const slow = createScorer({ id: "slow", name: "Slow", description: "", score: async () => (clock.advance(40), { score: 0.5, reason: "half", meta: { k: 1 } }) });
    const rows = await scoreAttempt(env, {
      runId: "run-1",
      nodeId: "answer",
      iteration: 2,
      attempt: 3,
      input: "What is 2+2?",
      output: { text: "4", words: 1 },
      latencyMs: 812,
      scorers: { slow: { scorer: slow }, length, skipped: { scorer: length, sampling: { type: "none" } } },
    });
    expect(rows.length).toBe(2);
    const stored = await listScores(api.db, { runId: "run-1" });
    expect(stored.length).toBe(2);
    expect(stored.find((r) => r.scorerId === "slow")).toEqual({
      id: "live:run-1:answer:2:3:slow",
      runId: "run-1",
      nodeId: "answer",
      iteration: 2,
      attempt: 3,
      scorerId: "slow",
      scorerName: "Slow",
      source: "live",
      score: 0.5,
      reason: "half",
      metaJson: '{"k":1}',
      inputJson: '"What is 2+2?"',
      outputJson: '{"text":"4","words":1}',
      groundTruthJson: null,
      contextJson: null,
      latencyMs: 812,
      scoredAtMs: stored.find((r) => r.scorerId === "slow")!.scoredAtMs,
      durationMs: 40,
    });
    expect(stored.find((r) => r.scorerId === "length")?.score).toBe(0.1);
  });

  it("never rejects: a throwing scorer or a bad scorers prop is a warning and other scorers still store", async () => {
    const { api, env, warnings } = await open();
    const boom = createScorer({ id: "boom", name: "Boom", description: "", score: () => { throw new Error("model down"); } });
    const rows = await scoreAttempt(env, { runId: "r", nodeId: "n", iteration: 0, attempt: 1, input: 1, output: { words: 5 }, scorers: { boom, length } });
    expect(rows.map((r) => r.scorerId)).toEqual(["length"]);
    expect(warnings.length).toBe(1);
    expect(warnings[0]!.message).toContain("model down");
    expect(warnings[0]!.details).toMatchObject({ code: "SCORER_FAILED", runId: "r", nodeId: "n" });
    expect(await scoreAttempt(env, { runId: "r", nodeId: "n", iteration: 0, attempt: 2, input: 1, output: 1, scorers: { bad: { nope: true } as never } })).toEqual([]);
    expect(warnings.length).toBe(2);
    expect((await listScores(api.db)).length).toBe(1);
  });

  it("batch-scores the finished tasks of past runs, and a re-run replaces its rows", async () => {
    const { api } = await open();
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="qa">
        <Sequence>
          <Task id="short" output={outputs.answer}>{{ text: ctx.input.question, words: 2 }}</Task>
          <Task id="long" output={outputs.answer}>{() => ({ text: "a b c d e f", words: 6 })}</Task>
        </Sequence>
      </Workflow>
    ));
    const r1 = await runWorkflow(wf, { input: { question: "why" } });
    const r2 = await runWorkflow(wf, { input: { question: "how" } });
    expect(r2.status).toBe("finished");
    const exact = createScorer({ id: "exact", name: "Exact", description: "", score: ({ output, groundTruth }) => ((output as { words: number }).words === groundTruth ? 1 : 0) });
    const first = await scoreRuns(api.db, { scorers: { exact, length }, runIds: [r1.runId, r2.runId], groundTruth: (t) => (t.nodeId === "short" ? 2 : 5) });
    expect(first.attempts).toBe(4);
    expect(first.failures).toEqual([]);
    const rows = await listScores(api.db, { scorerId: "exact" });
    expect(rows.map((r) => [r.runId, r.nodeId, r.score, r.source]).sort()).toEqual(
      [
        [r1.runId, "long", 0, "batch"],
        [r1.runId, "short", 1, "batch"],
        [r2.runId, "long", 0, "batch"],
        [r2.runId, "short", 1, "batch"],
      ].sort(),
    );
    const short1 = rows.find((r) => r.runId === r1.runId && r.nodeId === "short")!;
    expect(JSON.parse(short1.outputJson!)).toEqual({ text: "why", words: 2 });
    expect(JSON.parse(short1.inputJson!)).toEqual({ question: "why" });
    expect(short1.groundTruthJson).toBe("2");
    expect(short1.attempt).toBe(1);
    expect(typeof short1.latencyMs).toBe("number");
    await scoreRuns(api.db, { scorers: [exact], runIds: [r1.runId], nodeIds: ["long"], groundTruth: () => 6 });
    const after = await listScores(api.db, { scorerId: "exact" });
    expect(after.length).toBe(4);
    expect(after.find((r) => r.runId === r1.runId && r.nodeId === "long")?.score).toBe(1);
    // Without runIds, every finished run is graded.
    expect((await scoreRuns(api.db, { scorers: [length] })).attempts).toBe(4);
  });

  it("aggregates count, mean, min, max, p50 and stddev per scorer, filtered by run, node and scorer", async () => {
    const { api, env } = await open();
    // Scores from a fixed pseudo-random sequence (a linear congruential generator).
    let seed = 12345;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const recorded: Array<{ runId: string; nodeId: string; scorerId: string; score: number }> = [];
    const fixed = (id: string, value: () => number) => createScorer({ id, name: id.toUpperCase(), description: "", score: () => value() });
    for (let i = 0; i < 61; i++) {
      const runId = `run-${i % 3}`;
      const nodeId = `node-${i % 2}`;
      const a = Math.round(next() * 1000) / 10;
      const b = next();
      await scoreAttempt(env, { runId, nodeId, iteration: 0, attempt: i + 1, input: i, output: i, scorers: { a: fixed("quality", () => a), b: fixed("speed", () => b) } });
      recorded.push({ runId, nodeId, scorerId: "quality", score: a }, { runId, nodeId, scorerId: "speed", score: b });
    }

    // Computed here independently: Welford's one-pass variance, median by counting ranks.
    const expected = (rows: typeof recorded) => {
      let mean = 0;
      let m2 = 0;
      rows.forEach((r, k) => {
        const delta = r.score - mean;
        mean += delta / (k + 1);
        m2 += delta * (r.score - mean);
      });
      const values = rows.map((r) => r.score);
      const below = (x: number) => values.filter((v) => v < x).length;
      const atMost = (x: number) => values.filter((v) => v <= x).length;
      const lowerMedian = values.find((x) => below(x) < Math.ceil(values.length / 2) && atMost(x) >= Math.ceil(values.length / 2))!;
      const upperMedian = values.find((x) => below(x) < Math.floor(values.length / 2) + 1 && atMost(x) >= Math.floor(values.length / 2) + 1)!;
      return {
        count: rows.length,
        mean,
        min: Math.min(...values),
        max: Math.max(...values),
        p50: values.length % 2 ? upperMedian : (lowerMedian + upperMedian) / 2,
        stddev: Math.sqrt(m2 / rows.length),
      };
    };
    const check = async (opts: { runId?: string; nodeId?: string; scorerId?: string }) => {
      const got = await aggregateScores(api.db, opts);
      const scorerIds = [...new Set(recorded.filter((r) => !opts.scorerId || r.scorerId === opts.scorerId).map((r) => r.scorerId))].sort();
      expect(got.map((g) => g.scorerId)).toEqual(scorerIds);
      for (const g of got) {
        const want = expected(recorded.filter((r) => r.scorerId === g.scorerId && (!opts.runId || r.runId === opts.runId) && (!opts.nodeId || r.nodeId === opts.nodeId)));
        expect(g.scorerName).toBe(g.scorerId.toUpperCase());
        expect(g.count).toBe(want.count);
        for (const k of ["mean", "min", "max", "p50", "stddev"] as const) expect(g[k]).toBeCloseTo(want[k], 9);
      }
    };
    await check({});
    await check({ runId: "run-1" });
    await check({ nodeId: "node-0" });
    await check({ runId: "run-2", nodeId: "node-1", scorerId: "speed" });
    expect(await aggregateScores(api.db, { runId: "missing" })).toEqual([]);
  });
});
