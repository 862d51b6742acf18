/**
 * @module core/agents/run-agent
 * How a task calls its agent: picks the agent of the failover chain for this attempt, runs
 * its preflight once per run, calls `generate` with the task's prompt and schema, and reads
 * the candidate row out of the result (validation against the schema happens in the engine).
 */
import type { TaskRuntime } from "../components/types.js";
import type { TaskDescriptor } from "../engine/types.js";
import { FlowError, isFlowError } from "../errors.js";
import { extractAgentOutput } from "./output.js";
import type { AgentLike } from "./types.js";

export interface AgentTaskInput {
  runId: string;
  desc: TaskDescriptor;
  attempt: number;
  prompt: string;
  runtime: TaskRuntime;
  /** Agents whose preflight already ran in this run. */
  preflighted: WeakSet<AgentLike>;
}

/** Runs the task's agent; resolves to the raw candidate row and attempt metadata. */
export async function runAgentTask(input: AgentTaskInput): Promise<{ raw: unknown; meta: Record<string, unknown> }> {
  const { desc, runtime } = input;
  const chain = Array.isArray(desc.agent) ? desc.agent : [desc.agent!];
  // A failover chain: attempt n uses the n-th agent, the last one for every later attempt.
  const agent = chain[Math.min(input.attempt - 1, chain.length - 1)]!;
  const options = {
    prompt: input.prompt,
    abortSignal: runtime.signal,
    outputSchema: desc.outputSchema,
    isRetry: input.attempt > 1,
    retryAttempt: input.attempt - 1,
    taskContext: { runId: input.runId, nodeId: desc.nodeId, iteration: desc.iteration, attempt: input.attempt },
    onStdout: () => runtime.heartbeat(),
    onStderr: () => runtime.heartbeat(),
    onEvent: () => runtime.heartbeat(),
  };
  if (agent.preflight && !input.preflighted.has(agent)) {
    try {
      await agent.preflight(options);
    } catch (cause) {
      throw new FlowError("AGENT_PREFLIGHT_FAILED", `Agent ${agent.id ?? "(unnamed)"} preflight failed for task "${desc.nodeId}": ${(cause as Error)?.message ?? cause}`, { nodeId: desc.nodeId }, { cause });
    }
    input.preflighted.add(agent);
  }
  let result: unknown;
  try {
    result = await agent.generate(options);
  } catch (cause) {
    if (isFlowError(cause)) throw cause;
    throw new FlowError("AGENT_FAILED", `Agent ${agent.id ?? "(unnamed)"} failed on task "${desc.nodeId}": ${(cause as Error)?.message ?? cause}`, { nodeId: desc.nodeId }, { cause });
  }
  return { raw: extractAgentOutput(result), meta: { agentId: agent.id ?? null } };
}
