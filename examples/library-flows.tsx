/**
 * Library components that decide and hand off (docs/components.md, "Library components"):
 * handling an incident. A `DecisionTable` pages by severity, an `EscalationChain` answers the
 * customer (bot, then senior, then a person), a `Runbook` restores the service with an
 * approval before its risky and critical steps, a `Debate` settles rollback against fix
 * forward, a `ContentPipeline` writes the postmortem, and a `Kanban` moves the follow-up
 * tickets through triage and fix. Agents are scripted (examples/library-script.ts):
 *
 *   npx flow up examples/library-flows.tsx --input '{"severity":"sev2","service":"api","followUps":[{"id":"f1","title":"alert on queue depth"}]}'
 *   npx flow approve <runId> runbook:drain      # then resume with --run-id <runId> --resume
 *
 * The store is `.flow/examples/library-flows.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { createFlow, escalationRecordSchema } from "durable-flow";
import type { FlowApi } from "durable-flow";
import { jsonAfter, type ScriptedAgent, scriptedAgent } from "./library-script.js";

export const schemas = {
  input: z.object({
    severity: z.enum(["sev1", "sev2", "sev3"]),
    service: z.string(),
    followUps: z.array(z.object({ id: z.string(), title: z.string() })),
  }),
  page: z.object({ to: z.string() }),
  answer: z.object({ text: z.string(), escalate: z.boolean().optional() }),
  escalation: escalationRecordSchema,
  step: z.object({ ok: z.boolean(), log: z.string() }),
  argument: z.object({ argument: z.string() }),
  verdict: z.object({ choice: z.enum(["rollback", "fix-forward"]) }),
  doc: z.object({ text: z.string() }),
  ticket: z.object({ note: z.string() }),
  output: z.object({ paged: z.array(z.string()), resolvedBy: z.string().nullable(), restored: z.boolean(), choice: z.string(), postmortem: z.string(), ticketsDone: z.number().int() }),
};

export interface FlowsAgents {
  bot: ScriptedAgent;
  senior: ScriptedAgent;
  sre: ScriptedAgent;
  optimist: ScriptedAgent;
  skeptic: ScriptedAgent;
  judge: ScriptedAgent;
  outliner: ScriptedAgent;
  writer: ScriptedAgent;
  editor: ScriptedAgent;
  pm: ScriptedAgent;
  coder: ScriptedAgent;
}

/** Scripted agents; `seniorEscalates` makes the senior hand on to a person too. */
export function flowsAgents(seniorEscalates = false, before?: (call: { nodeId: string; iteration: number }) => Promise<void> | void): FlowsAgents {
  const hooks = before ? { before } : {};
  const says = (id: string, text: (prompt: string) => string) => scriptedAgent(id, ({ prompt }) => ({ text: text(prompt) }), hooks);
  return {
    bot: scriptedAgent("bot", () => ({ text: "Have you tried restarting?", escalate: true }), hooks),
    senior: scriptedAgent("senior", () => ({ text: "We are on it; ETA 30 minutes.", escalate: seniorEscalates }), hooks),
    sre: scriptedAgent("sre", ({ prompt }) => ({ ok: true, log: prompt.split("`")[1] ?? "done" }), hooks),
    optimist: scriptedAgent("optimist", ({ prompt }) => ({ argument: `fix forward, round ${/Round (\d)/.exec(prompt)?.[1]}` }), hooks),
    skeptic: scriptedAgent("skeptic", ({ prompt }) => ({ argument: `roll back, round ${/Round (\d)/.exec(prompt)?.[1]}` }), hooks),
    judge: scriptedAgent("judge", ({ prompt }) => ({ choice: (prompt.match(/roll back/g) ?? []).length >= 2 ? "rollback" : "fix-forward" }), hooks),
    outliner: says("outliner", () => "1. impact 2. cause 3. actions"),
    writer: says("writer", (p) => `Draft from outline: ${String(jsonAfter(p, "(outline): ").text)}`),
    editor: says("editor", (p) => `Edited: ${String(jsonAfter(p, "(draft): ").text)}`),
    pm: scriptedAgent("pm", ({ nodeId }) => ({ note: `triaged ${nodeId.split(":")[1]}` }), hooks),
    coder: scriptedAgent("coder", ({ prompt }) => ({ note: `fixed after "${String(jsonAfter(prompt, 'From column "triage": ').note)}"` }), hooks),
  };
}

/** The incident workflow on an api. */
export function handleIncident(api: FlowApi<typeof schemas>, agents: FlowsAgents) {
  const { flow, Workflow, Task, DecisionTable, EscalationChain, Runbook, Debate, ContentPipeline, Kanban, outputs } = api;
  return flow((ctx) => {
    const { severity, service } = ctx.input;
    const page = (to: string) => <Task id={`page-${to}`} output={outputs.page}>{{ to }}</Task>;
    return (
      <Workflow name="incident">
        <DecisionTable
          id="paging"
          strategy="all-match"
          rules={[
            { when: severity === "sev1", then: page("executives"), label: "sev1 reaches executives" },
            { when: severity !== "sev3", then: page("oncall"), label: "sev1-2 page on-call" },
          ]}
          default={page("ticket-queue")}
        />
        <EscalationChain
          id="customer"
          levels={[
            { agent: agents.bot, output: outputs.answer, label: "bot" },
            { agent: agents.senior, output: outputs.answer, label: "senior" },
          ]}
          humanFallback
          humanRequest={{ title: "Write to the customer yourself" }}
          escalationOutput={outputs.escalation}
          prompt={`A customer reports that ${service} is down.`}
        />
        <Runbook
          id="runbook"
          defaultAgent={agents.sre}
          stepOutput={outputs.step}
          approvalRequest={{ summary: `Restoring ${service}` }}
          onDeny="skip"
          steps={[
            { id: "health", risk: "safe", command: () => ({ ok: true, log: `${service} unhealthy` }) },
            { id: "drain", risk: "risky", command: `kubectl drain ${service}` },
            { id: "restart", risk: "critical", command: `kubectl rollout restart deploy/${service}` },
          ]}
        />
        <Debate id="plan" topic={`Fix ${service} forward instead of rolling back`} proposer={agents.optimist} opponent={agents.skeptic} judge={agents.judge} rounds={2} argumentOutput={outputs.argument} verdictOutput={outputs.verdict} />
        <ContentPipeline
          id="postmortem"
          stages={[
            { id: "pm-outline", agent: agents.outliner, output: outputs.doc, prompt: `Outline the postmortem of the ${service} incident.`, label: "outline" },
            { id: "pm-draft", agent: agents.writer, output: outputs.doc, label: "draft" },
            { id: "pm-edit", agent: agents.editor, output: outputs.doc, label: "edit" },
          ]}
        />
        <Kanban id="follow-ups" useTickets={(c) => (c.input as { followUps: Array<{ id: string; title: string }> }).followUps} agents={{ pm: agents.pm }} columns={[{ name: "triage", agent: "pm", output: outputs.ticket }, { name: "fix", agent: agents.coder, output: outputs.ticket }]} maxConcurrency={2} />
        <Task id="summary" output={outputs.output}>
          {() => ({
            paged: ctx.outputs.page.map((p) => p.to),
            resolvedBy: ctx.latest(outputs.escalation, "customer")?.resolvedBy ?? null,
            restored: ctx.outputMaybe(outputs.step, { nodeId: "runbook:restart" })?.ok === true,
            choice: ctx.latest(outputs.verdict, "plan:verdict")?.choice ?? "",
            postmortem: ctx.latest(outputs.doc, "pm-edit")?.text ?? "",
            ticketsDone: ctx.outputs.ticket.filter((t) => t.nodeId.endsWith(":fix")).length,
          })}
        </Task>
      </Workflow>
    );
  });
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/library-flows.db" });
export default handleIncident(api, flowsAgents());
