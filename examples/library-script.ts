/**
 * Scripted agents for the library examples: objects implementing `AgentLike` that answer from
 * a script instead of a model, so the examples run offline and their tests can assert every
 * prompt and row. Swap them for real agents (docs/agents.md) and the workflows stay the same.
 */
import type { AgentGenerateOptions, AgentLike } from "durable-flow";

/** One call an agent received. */
export interface ScriptedCall {
  nodeId: string;
  iteration: number;
  prompt: string;
}

/** An agent that answers from a script and remembers what it was asked. */
export interface ScriptedAgent extends AgentLike {
  calls: ScriptedCall[];
}

/**
 * An agent whose answer (the row, as JSON text) is `answer(call)`. `hooks.before` runs first
 * (the crash test logs and pauses there); `hooks.tokens` is the usage it reports per answer.
 */
export function scriptedAgent(id: string, answer: (call: ScriptedCall) => unknown, hooks: { before?: (call: ScriptedCall) => Promise<void> | void; tokens?: number } = {}): ScriptedAgent {
  const calls: ScriptedCall[] = [];
  return {
    id,
    calls,
    async generate(args?: AgentGenerateOptions) {
      const call = { nodeId: args?.taskContext?.nodeId ?? "?", iteration: args?.taskContext?.iteration ?? 0, prompt: args?.prompt ?? "" };
      calls.push(call);
      await hooks.before?.(call);
      return { text: JSON.stringify(answer(call)), ...(hooks.tokens ? { usage: { totalTokens: hooks.tokens } } : {}) };
    },
  };
}

/** The JSON value that follows `marker` in a prompt, up to the end of that line. */
export function jsonAfter(prompt: string, marker: string): Record<string, unknown> {
  return JSON.parse(prompt.slice(prompt.indexOf(marker) + marker.length).split("\n")[0]!) as Record<string, unknown>;
}
