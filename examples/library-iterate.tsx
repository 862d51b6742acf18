/**
 * Library components that repeat until something holds (docs/components.md, "Library
 * components"): hardening a release. A `Poller` waits for the build to go green on a durable
 * timer, `ScanFixVerify` patches vulnerable packages until an audit is clean, a `ReviewLoop`
 * rewrites the changelog until the reviewer approves, an `Optimizer` shortens the announcement
 * until it scores 1, and a `DriftDetector` compares the live config with the baseline and
 * pages on drift. Agents are scripted (examples/library-script.ts), so it runs offline:
 *
 *   npx flow up examples/library-iterate.tsx --wait --input '{"version":"3.1.0","buildReadyAfter":2,"vulnerable":["lodash","minimist"]}'
 *
 * The store is `.flow/examples/library-iterate.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { createFlow } from "durable-flow";
import type { FlowApi } from "durable-flow";
import { jsonAfter, type ScriptedAgent, scriptedAgent } from "./library-script.js";

export const schemas = {
  input: z.object({
    version: z.string(),
    /** The build is green from this check on (1 = at once). */
    buildReadyAfter: z.number().int(),
    /** Packages the audit flags until they are patched. */
    vulnerable: z.array(z.string()),
  }),
  probe: z.object({ satisfied: z.boolean(), status: z.string() }),
  scan: z.object({ findings: z.array(z.string()) }),
  fix: z.object({ patched: z.array(z.string()) }),
  verify: z.object({ passed: z.boolean() }),
  changelog: z.object({ text: z.string() }),
  review: z.object({ approved: z.boolean(), feedback: z.string().optional() }),
  tweet: z.object({ text: z.string() }),
  score: z.object({ score: z.number(), feedback: z.string().optional() }),
  snapshot: z.object({ replicas: z.number().int(), tls: z.string() }),
  diff: z.object({ drifted: z.boolean(), changed: z.array(z.string()) }),
  page: z.object({ to: z.string(), message: z.string() }),
  output: z.object({ version: z.string(), buildChecks: z.number().int(), changelog: z.string(), tweet: z.string(), drifted: z.boolean() }),
};

/** The baseline the DriftDetector compares the live config with. */
export const BASELINE = { replicas: 3, tls: "on" };

export interface IterateAgents {
  coder: ScriptedAgent;
  writer: ScriptedAgent;
  reviewer: ScriptedAgent;
  copywriter: ScriptedAgent;
  inspector: ScriptedAgent;
  comparer: ScriptedAgent;
}

/**
 * Scripted agents. The inspector reports `liveReplicas` (the baseline wants 3); `before` runs
 * before each answer (the crash test logs there).
 */
export function iterateAgents(liveReplicas = 2, before?: (call: { nodeId: string; iteration: number }) => Promise<void> | void): IterateAgents {
  const hooks = before ? { before } : {};
  return {
    coder: scriptedAgent("coder", ({ prompt }) => ({ patched: (jsonAfter(prompt, ": ").findings as string[]) ?? [] }), hooks),
    writer: scriptedAgent("writer", ({ prompt }) => ({ text: prompt.includes("feedback") ? "3.1: faster sync. Breaking changes: none." : "3.1: faster sync." }), hooks),
    reviewer: scriptedAgent("reviewer", ({ prompt }) => (prompt.includes("Breaking") ? { approved: true } : { approved: false, feedback: "Say whether anything breaks." }), hooks),
    copywriter: scriptedAgent("copywriter", ({ prompt }) => ({ text: prompt.includes("scored") ? "Flow 3.1 is out: faster sync." : "Flow 3.1 is out today with much faster sync for every team!" }), hooks),
    inspector: scriptedAgent("inspector", () => ({ replicas: liveReplicas, tls: "on" }), hooks),
    comparer: scriptedAgent("comparer", ({ prompt }) => {
      const base = jsonAfter(prompt, "Baseline: ");
      const now = jsonAfter(prompt, "Current: ");
      const changed = Object.keys(base).filter((k) => JSON.stringify(base[k]) !== JSON.stringify(now[k]));
      return { drifted: changed.length > 0, changed };
    }, hooks),
  };
}

/** The release-hardening workflow on an api. */
export function hardenRelease(api: FlowApi<typeof schemas>, agents: IterateAgents, opts: { pollMs?: number } = {}) {
  const { flow, Workflow, Task, Poller, ScanFixVerify, ReviewLoop, Optimizer, DriftDetector, outputs } = api;
  return flow((ctx) => {
    const patched = () => new Set(ctx.outputs.fix.flatMap((f) => f.patched));
    const audit = () => ({ findings: ctx.input.vulnerable.filter((p) => !patched().has(p)) });
    const changelog = ctx.latest(outputs.changelog, "changelog:produce");
    const tweet = ctx.latest(outputs.tweet, "announce:generate");
    const diff = ctx.latest(outputs.diff, "config:compare");
    return (
      <Workflow name="harden-release">
        <Poller id="build" check={(t) => ({ satisfied: t.iteration + 1 >= ctx.input.buildReadyAfter, status: `check ${t.iteration + 1}` })} checkOutput={outputs.probe} intervalMs={opts.pollMs ?? 20} backoff="linear" maxAttempts={5} />
        <ScanFixVerify id="audit" scanner={audit} fixer={agents.coder} verifier={() => ({ passed: audit().findings.length === 0 })} scanOutput={outputs.scan} fixOutput={outputs.fix} verifyOutput={outputs.verify} target="package.json" />
        <ReviewLoop id="changelog" producer={agents.writer} reviewer={agents.reviewer} produceOutput={outputs.changelog} reviewOutput={outputs.review} prompt={`Write the changelog of ${ctx.input.version}.`} />
        <Optimizer id="announce" generator={agents.copywriter} evaluator={(c) => ({ score: Math.min(1, 40 / String(c.text).length), feedback: "Shorter." })} generateOutput={outputs.tweet} evaluateOutput={outputs.score} targetScore={1} maxIterations={4} prompt="Announce the release in one line." />
        <DriftDetector id="config" captureAgent={agents.inspector} compareAgent={agents.comparer} captureOutput={outputs.snapshot} compareOutput={outputs.diff} baseline={BASELINE} alert={<Task id="page-oncall" output={outputs.page}>{() => ({ to: "oncall", message: `Config drift: ${diff?.changed.join(", ")}` })}</Task>} />
        <Task id="summary" output={outputs.output}>
          {() => ({ version: ctx.input.version, buildChecks: ctx.outputs.probe.length, changelog: changelog?.text ?? "", tweet: tweet?.text ?? "", drifted: diff?.drifted ?? false })}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/library-iterate.db" });
export default hardenRelease(api, iterateAgents());
