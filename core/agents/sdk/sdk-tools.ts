/**
 * @module core/agents/sdk/sdk-tools
 * Gives an SDK agent's tools to the AI SDK: AI SDK tools pass through as they are; Flow tools
 * (`defineTool`, the built-ins) become `tool({ description, inputSchema, execute })` whose
 * calls go through the attempt's tool-context factory, so each call gets its `ToolContext`
 * (stable idempotency key, rootDir, signal) and repeated side effects are recorded and warned
 * about (docs/tools.md, "Retries and resumes").
 */
import type { Tool as SdkTool, ToolSet } from "ai";
import { createToolContextFactory, getDefinedToolMetadata } from "../../tools/index.js";
import type { AnyTool, ToolContextFactory } from "../../tools/index.js";
import type { AgentGenerateOptions } from "../types.js";

/** Tools an SDK agent accepts, by name: AI SDK tools and Flow tools, mixed freely. */
export type AgentToolSet = Record<string, SdkTool | AnyTool>;

/**
 * The AI SDK tool set for one generate call. The engine may hand the attempt's factory as
 * `options.toolCalls`; without one, a factory is made from `taskContext`, `rootDir` and the
 * abort signal.
 * @example
 * const tools = toSdkTools({ read, write, weather: tool({ ... }) }, { taskContext: { runId, nodeId: "fix" } });
 */
export function toSdkTools(tools: AgentToolSet, options: AgentGenerateOptions): ToolSet {
  let factory: ToolContextFactory | undefined = options.toolCalls as ToolContextFactory | undefined;
  const factoryOf = (): ToolContextFactory => {
    if (factory) return factory;
    const t = options.taskContext ?? {};
    factory = createToolContextFactory({
      runId: t.runId ?? "",
      nodeId: t.nodeId ?? "",
      iteration: t.iteration ?? 0,
      attempt: t.attempt ?? 1,
      ...(options.rootDir !== undefined ? { rootDir: options.rootDir } : {}),
      ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    });
    return factory;
  };
  const out: ToolSet = {};
  for (const [name, t] of Object.entries(tools)) {
    if (!getDefinedToolMetadata(t)) {
      out[name] = t as SdkTool;
      continue;
    }
    const flowTool = t as AnyTool;
    // The AI SDK's `tool()` is the identity (it only types its argument), so the object is
    // built as it would return it, and `ai` is not loaded for it.
    out[name] = {
      description: flowTool.description,
      inputSchema: flowTool.schema,
      execute: async (args: unknown) => {
        const { output, warning } = await factoryOf().callTool(flowTool, args);
        // The model must learn that a non-idempotent effect already happened in an earlier attempt.
        return warning ? { warning, output } : output;
      },
    } as never as SdkTool;
  }
  return out;
}
