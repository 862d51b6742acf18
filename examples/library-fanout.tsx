/**
 * Library components that fan out (docs/components.md, "Library components"): choosing a
 * vendor. `GatherAndSynthesize` asks three sources at once and writes a brief (under an
 * `Aspects` token budget that skips what is left once the research spent it), a `Panel` of
 * three votes on the vendor, a `CheckSuite` runs security, license and SLA checks (majority
 * wins), `ClassifyAndRoute` sends the vendor's open support tickets to billing, bugs or a
 * default desk, and a `Sidecar` compares a big model's recommendation with a small one's.
 * Agents are scripted (examples/library-script.ts), so it runs offline:
 *
 *   npx flow up examples/library-fanout.tsx --input '{"vendor":"acme","tickets":[{"id":"t1","text":"invoice twice"},{"id":"t2","text":"crash on login"}]}'
 *
 * The store is `.flow/examples/library-fanout.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { checkVerdictSchema, createFlow, createScorer, sidecarDeltaSchema } from "durable-flow";
import type { FlowApi } from "durable-flow";
import { type ScriptedAgent, scriptedAgent } from "./library-script.js";

export const schemas = {
  input: z.object({ vendor: z.string(), tickets: z.array(z.object({ id: z.string(), text: z.string() })) }),
  finding: z.object({ source: z.string(), notes: z.string() }),
  brief: z.object({ summary: z.string() }),
  opinion: z.object({ vote: z.string(), reason: z.string() }),
  decision: z.object({ decision: z.string() }),
  check: checkVerdictSchema,
  label: z.object({ category: z.string() }),
  reply: z.object({ desk: z.string(), text: z.string() }),
  recommendation: z.object({ text: z.string() }),
  delta: sidecarDeltaSchema,
  output: z.object({ vendor: z.string(), decision: z.string(), checksPassed: z.boolean(), replies: z.number().int(), cheaperWins: z.boolean() }),
};

/** What a good recommendation mentions: the scorer's ground truth. */
export const MUST_MENTION = ["cheaper", "faster"];

export interface FanoutAgents {
  searcher: ScriptedAgent;
  writer: ScriptedAgent;
  panelists: ScriptedAgent[];
  moderator: ScriptedAgent;
  lawyer: ScriptedAgent;
  router: ScriptedAgent;
  desks: Record<"billing" | "bug" | "default", ScriptedAgent>;
  big: ScriptedAgent;
  small: ScriptedAgent;
}

/** Scripted agents; `votes` are the panelists' votes, in order. */
export function fanoutAgents(votes = ["acme", "acme", "globex"], before?: (call: { nodeId: string; iteration: number }) => Promise<void> | void): FanoutAgents {
  const hooks = before ? { before } : {};
  const desk = (name: string) => scriptedAgent(name, ({ prompt }) => ({ desk: name, text: `${name} handled: ${prompt.slice(prompt.indexOf("Item: ") + 6)}` }), hooks);
  return {
    searcher: scriptedAgent("searcher", ({ nodeId }) => ({ source: nodeId, notes: `what ${nodeId} says` }), { ...hooks, tokens: 400 }),
    writer: scriptedAgent("writer", ({ prompt }) => ({ summary: `Brief from ${[...prompt.matchAll(/^(\w+): \{/gm)].map((m) => m[1]).join(", ")}` }), hooks),
    panelists: votes.map((vote, i) => scriptedAgent(`panelist-${i + 1}`, () => ({ vote, reason: `${vote} fits best` }), hooks)),
    moderator: scriptedAgent("moderator", ({ prompt }) => ({ decision: /(?:chose|Consensus reached on) "([^"]+)"/.exec(prompt)?.[1] ?? "undecided" }), hooks),
    lawyer: scriptedAgent("lawyer", () => ({ passed: true, summary: "MIT licensed" }), hooks),
    router: scriptedAgent("router", ({ prompt }) => ({ category: prompt.includes("invoice") ? "billing" : prompt.includes("crash") ? "bug" : "other" }), hooks),
    desks: { billing: desk("billing"), bug: desk("bug"), default: desk("default") },
    big: scriptedAgent("big", () => ({ text: "Acme is the better fit: cheaper and faster." }), hooks),
    small: scriptedAgent("small", () => ({ text: "Acme is cheaper." }), hooks),
  };
}

/** Share of MUST_MENTION words the recommendation contains. */
export const coverage = createScorer({
  id: "coverage",
  name: "Coverage",
  description: "Share of the ground-truth words the text mentions",
  score: ({ output, groundTruth }) => {
    const words = (groundTruth as string[] | undefined) ?? MUST_MENTION;
    return words.filter((w) => String((output as { text?: string }).text).includes(w)).length / words.length;
  },
});

/** The vendor-choice workflow on an api. */
export function chooseVendor(api: FlowApi<typeof schemas>, agents: FanoutAgents, opts: { strategy?: "vote" | "consensus"; researchTokens?: number } = {}) {
  const { flow, Workflow, Task, Aspects, GatherAndSynthesize, Panel, CheckSuite, ClassifyAndRoute, Sidecar, outputs } = api;
  return flow((ctx) => {
    const vendor = ctx.input.vendor;
    return (
      <Workflow name="choose-vendor">
        <Aspects id="research-budget" tokenBudget={{ max: opts.researchTokens ?? 2000, onExceeded: "skip-remaining" }} tracking={{ tokens: true }}>
        <GatherAndSynthesize
          id="research"
          sources={{ docs: { agent: agents.searcher, prompt: `Read ${vendor}'s docs.` }, pricing: { agent: agents.searcher, prompt: `Find ${vendor}'s prices.` }, reviews: { agent: agents.searcher, prompt: `Collect reviews of ${vendor}.` } }}
          synthesizer={agents.writer}
          gatherOutput={outputs.finding}
          synthesisOutput={outputs.brief}
          maxConcurrency={2}
        />
        </Aspects>
        <Panel id="panel" panelists={agents.panelists.map((agent, i) => ({ agent, role: ["architect", "buyer", "operator"][i] ?? "member" }))} moderator={agents.moderator} panelistOutput={outputs.opinion} moderatorOutput={outputs.decision} strategy={opts.strategy ?? "vote"} minAgree={2} prompt={`Which vendor should we pick, ${vendor} or globex?`} />
        <CheckSuite
          id="due-diligence"
          checks={{ security: { command: () => ({ passed: true, summary: "no open CVEs" }) }, license: { agent: agents.lawyer, label: "license review" }, sla: { command: () => ({ passed: false, summary: "99.5% < 99.9%" }) } }}
          verdictOutput={outputs.check}
          strategy="majority"
        />
        <ClassifyAndRoute id="support" items={ctx.input.tickets} categories={{ billing: agents.desks.billing, bug: { agent: agents.desks.bug, prompt: "Reproduce and answer." }, default: agents.desks.default }} classifierAgent={agents.router} classifierOutput={outputs.label} routeOutput={outputs.reply} />
        <Sidecar id="recommend" agent={agents.big} sidecar={agents.small} output={outputs.recommendation} scorers={{ coverage }} groundTruth={MUST_MENTION} deltaOutput={outputs.delta} prompt={`Recommend ${vendor} or not.`} />
        <Task id="summary" output={outputs.output}>
          {() => ({
            vendor,
            decision: ctx.latest(outputs.decision, "panel:moderator")?.decision ?? "",
            checksPassed: ctx.latest(outputs.check, "due-diligence:verdict")?.passed ?? false,
            replies: ctx.outputs.reply.length,
            cheaperWins: ctx.latest(outputs.delta, "recommend:delta")?.cheaperWins ?? false,
          })}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/library-fanout.db" });
export default chooseVendor(api, fanoutAgents());
