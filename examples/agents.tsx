/**
 * Agents in one workflow (docs/agents.md): a planner on a local model server with a hosted
 * model as failover, and a command-line coding agent that applies the plan with a tool
 * allowlist. Rows come back validated against the schemas; usage, latency and the agents'
 * session ids are recorded with each attempt.
 *
 *   FLOW_LOCAL_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=... \
 *   npx flow up examples/agents.tsx --input '{"issue":"Parser crashes on empty input"}'
 */
import { z } from "zod";
import { createFlow, HostedChatAgent, LocalServerAgent, SessionCliAgent } from "durable-flow";
import type { AgentLike, FlowApi } from "durable-flow";

export const schemas = {
  input: z.object({ issue: z.string() }),
  plan: z.object({ steps: z.array(z.string()).min(1), risk: z.enum(["low", "medium", "high"]) }),
  output: z.object({ summary: z.string(), filesChanged: z.number().int() }),
};

/** The agents the workflow uses: a planner (one agent or a failover chain) and a coder. */
export interface TriageAgents {
  planner: AgentLike | AgentLike[];
  coder: AgentLike;
}

/** Builds the workflow on a Flow api (the default export uses `.flow/flow.db`). */
export function triageWorkflow(api: FlowApi<typeof schemas>, agents: TriageAgents) {
  const { flow, Workflow, Task, outputs } = api;
  return flow((ctx) => {
    const plan = ctx.outputMaybe(outputs.plan, { nodeId: "plan" });
    return (
      <Workflow name="triage">
        <Task id="plan" output={outputs.plan} agent={agents.planner} retries={2} timeoutMs={120_000}>
          {`Plan a fix for this issue, as a few short steps, and rate its risk.\n\nIssue: ${ctx.input.issue}`}
        </Task>
        <Task id="fix" output={outputs.output} agent={agents.coder} allowTools={["Read", "Edit"]} retries={1} timeoutMs={900_000} heartbeatTimeoutMs={300_000}>
          {`Apply this plan in the repository, then summarize what you changed.\n\n${(plan?.steps ?? []).map((s, i) => `${i + 1}. ${s}`).join("\n")}`}
        </Task>
      </Workflow>
    );
  });
}

export default triageWorkflow(createFlow(schemas), {
  planner: [
    new LocalServerAgent({ id: "local-planner", baseURL: process.env.FLOW_LOCAL_BASE_URL ?? "http://127.0.0.1:8080/v1" }),
    new HostedChatAgent({ id: "hosted-planner", model: "gpt-5-mini" }),
  ],
  coder: new SessionCliAgent({ id: "coder", idleTimeoutMs: 300_000 }),
});
