/**
 * @module core/agents/sdk/tool-loop-sdk-agent
 * The base of Flow's SDK agents: an {@link AgentLike} over the AI SDK's `ToolLoopAgent`
 * (docs/agents.md, "SDK agents"). It needs only `fetch`, so it runs in Node and in the browser.
 *
 * Per call it builds a `ToolLoopAgent` from the settings (the task's output schema becomes
 * `Output.object` when native structured output is on), streams when the caller listens
 * (`onStdout` gets text deltas, `onEvent` tool calls and results: both are heartbeats for the
 * engine) and generates otherwise, then returns an {@link AgentResult}. A native answer that
 * fails the schema is returned without `output`, so run-agent's correction rounds name the fields.
 *
 * The AI SDK (`ai`) and a provider package load at the first call, not with Flow (issue 22,
 * docs/package.md "What loads when"): a model made from a model id is built then
 * ({@link lazyModel}).
 */
import type { LanguageModel, ModelMessage, ToolLoopAgent, ToolSet } from "ai";
import type { AgentGenerateOptions, AgentLike, AgentMessage, AgentResult, AgentTimeout } from "../types.js";
import { normalizeUsage } from "../usage.js";
import { type InputIssue, invalidInputMessage } from "../../tools/index.js";
import { toSdkTools } from "./sdk-tools.js";
import type { AgentToolSet } from "./sdk-tools.js";

type AgentSettings = ConstructorParameters<typeof ToolLoopAgent>[0];

const LAZY_MODEL = Symbol("durable-flow/lazy-model");
type LazyModel = { [LAZY_MODEL]: () => Promise<LanguageModel> };

/**
 * A model built on first use (the provider package loads then); the provider agents pass it to
 * {@link ToolLoopSdkAgent} in place of the model, with its id (`modelId`, known before it loads).
 * @example
 * super(lazyModel(async () => (await import("@ai-sdk/anthropic")).createAnthropic()(id), id), rest, true);
 */
export function lazyModel(load: () => Promise<LanguageModel>, modelId?: string): LanguageModel {
  let model: Promise<LanguageModel> | undefined;
  return { [LAZY_MODEL]: () => (model ??= load()), ...(modelId !== undefined ? { modelId } : {}) } as LazyModel as unknown as LanguageModel;
}

function modelOf(model: LanguageModel): LanguageModel | Promise<LanguageModel> {
  return typeof model === "object" && model !== null && LAZY_MODEL in model ? (model as unknown as LazyModel)[LAZY_MODEL]() : model;
}

/**
 * Settings shared by every SDK agent: the AI SDK agent settings SPEC.md names, plus `id`,
 * `maxRetries` (the AI SDK's own HTTP retries; default 0 because Flow retries tasks and fails
 * over on quota itself) and `nativeStructuredOutput`.
 * @example
 * const opts: SdkAgentOptions = { instructions: "Be terse.", temperature: 0, stopWhen: stepCountIs(5) };
 */
export interface SdkAgentOptions {
  id?: string;
  instructions?: string;
  /** AI SDK tools (`tool({...})`) and Flow tools (`defineTool`), by name. */
  tools?: AgentToolSet;
  stopWhen?: AgentSettings["stopWhen"];
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: AgentSettings["providerOptions"];
  prepareCall?: AgentSettings["prepareCall"];
  /** HTTP retries inside the AI SDK (default 0). */
  maxRetries?: number;
  /** Use the provider's schema response format for the task's output schema. */
  nativeStructuredOutput?: boolean;
}

/**
 * An agent over any AI SDK language model. The provider classes below preset the model.
 * @example
 * import { MockLanguageModelV3 } from "ai/test";
 * const agent = new ToolLoopSdkAgent(new MockLanguageModelV3({ doGenerate: async () => ({ ... }) }), { nativeStructuredOutput: true });
 */
export class ToolLoopSdkAgent implements AgentLike {
  readonly id: string | undefined;
  readonly supportsNativeStructuredOutput: boolean;
  readonly tools: AgentToolSet | undefined;
  protected readonly model: LanguageModel;
  protected readonly options: SdkAgentOptions;

  constructor(model: LanguageModel, options: SdkAgentOptions = {}, nativeDefault = true) {
    this.model = model;
    this.options = options;
    this.id = options.id;
    this.tools = options.tools;
    this.supportsNativeStructuredOutput = options.nativeStructuredOutput ?? nativeDefault;
  }

  /** The model's id ("gpt-5-mini"): what messages name the agent by when it has no `id`. */
  get modelId(): string | undefined {
    return typeof this.model === "string" ? this.model : (this.model as { modelId?: string }).modelId;
  }

  async generate(args: AgentGenerateOptions = {}): Promise<AgentResult> {
    const { system, call } = toCallPrompt(args);
    const native = this.supportsNativeStructuredOutput && args.outputSchema !== undefined;
    const o = this.options;
    const instructions = [o.instructions, system].filter(Boolean).join("\n\n") || undefined;
    // The agent's own tools, plus any the task adds for this call (task memory's remember/recall).
    const own = { ...o.tools, ...(args.tools as AgentToolSet | undefined) };
    const tools: ToolSet | undefined = Object.keys(own).length ? toSdkTools(own, args) : undefined;
    const [{ NoObjectGeneratedError, Output, ToolLoopAgent }, model] = await Promise.all([import("ai"), modelOf(this.model)]);
    let finished: SdkFinish | undefined;
    const agent = new ToolLoopAgent({
      model,
      maxRetries: o.maxRetries ?? 0,
      ...(o.id !== undefined ? { id: o.id } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
      ...(tools ? { tools } : {}),
      ...(o.stopWhen !== undefined ? { stopWhen: o.stopWhen } : {}),
      ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.providerOptions !== undefined ? { providerOptions: o.providerOptions } : {}),
      ...(o.prepareCall !== undefined ? { prepareCall: o.prepareCall } : {}),
      ...(native ? { output: Output.object({ schema: args.outputSchema as never }) } : {}),
      // Settings reach streamText as they are: stream errors are rethrown below, not logged.
      onError: () => undefined,
      // Kept for a native answer that fails the schema (generate then throws, with no result).
      onFinish: (e: SdkFinish) => void (finished = e),
    } as AgentSettings);
    const params = {
      ...call,
      ...(args.abortSignal ? { abortSignal: args.abortSignal } : {}),
      ...(args.timeout !== undefined ? { timeout: sdkTimeout(args.timeout) } : {}),
    } as Parameters<typeof agent.generate>[0];

    // A native answer that fails the schema comes back without `output`: run-agent validates its
    // text, names the fields and asks again (the same correction rounds as prompt-based output).
    const unparsed = (error: unknown) => native && NoObjectGeneratedError.isInstance(error);
    if (!args.onStdout && !args.onEvent) {
      try {
        const r = await agent.generate(params);
        return toResult(r, native ? r.output : undefined, providerOf(model));
      } catch (error) {
        if (finished && unparsed(error)) return toResult(finished, undefined, providerOf(model));
        throw error;
      }
    }
    const stream = await agent.stream(params);
    /** Calls the AI SDK refused before the tool ran (input its schema refuses), with why. */
    const refused = new Map<string, unknown>();
    for await (const part of stream.fullStream) {
      if (part.type === "text-delta") {
        args.onStdout?.(part.text);
        args.onEvent?.({ type: "text", engine: "sdk", delta: part.text });
      } else if (part.type === "tool-call") {
        if (part.invalid) refused.set(part.toolCallId, part.error);
        args.onEvent?.({ type: "action", engine: "sdk", phase: "started", action: { id: part.toolCallId, kind: "tool", title: part.toolName, detail: part.input }, input: part.input });
      } else if (part.type === "tool-result") {
        args.onEvent?.({ type: "action", engine: "sdk", phase: "completed", ok: true, action: { id: part.toolCallId, kind: "tool", title: part.toolName }, output: part.output });
      } else if (part.type === "tool-error") {
        args.onEvent?.({ type: "action", engine: "sdk", phase: "completed", ok: false, action: { id: part.toolCallId, kind: "tool", title: part.toolName }, error: toolError(refused.get(part.toolCallId) ?? part.error, part.toolName) });
      } else if (part.type === "finish-step") {
        const usage = normalizeUsage(part.usage);
        if (usage) args.onEvent?.({ type: "usage", engine: "sdk", usage, ...(part.response?.modelId ? { model: part.response.modelId } : {}) });
      } else if (part.type === "error") throw part.error;
    }
    const [text, steps, totalUsage, finishReason, response] = await Promise.all([stream.text, stream.steps, stream.totalUsage, stream.finishReason, stream.response]);
    const output = native ? await Promise.resolve(stream.output).catch((error: unknown) => (unparsed(error) ? undefined : Promise.reject(error))) : undefined;
    return toResult({ text, steps, totalUsage, finishReason, response }, output, providerOf(model));
  }
}

/**
 * A failed or refused tool call as the transcript records it: the FlowError code when there is
 * one; input the AI SDK refused before the tool ran as TOOL_INPUT_INVALID with the schema's
 * issues in one line (the SDK's own message is the issues as indented JSON).
 */
function toolError(error: unknown, toolName: string): { code?: string; message: string } {
  const issues = (error as { name?: unknown; cause?: { cause?: { issues?: unknown } } } | null)?.cause?.cause?.issues;
  if ((error as { name?: unknown } | null)?.name === "AI_InvalidToolInputError" && Array.isArray(issues)) return { code: "TOOL_INPUT_INVALID", message: invalidInputMessage(toolName, issues as InputIssue[]) };
  const code = (error as { code?: unknown } | null)?.code;
  return { ...(typeof code === "string" ? { code } : {}), message: error instanceof Error ? error.message : String(error) };
}

/** What `toResult` reads of a generation: the AI SDK result, or its `onFinish` event. */
interface SdkFinish {
  text: string;
  steps: { text: string }[];
  totalUsage: unknown;
  finishReason: string;
  response: { modelId: string };
}

function toResult(r: SdkFinish, output: unknown, provider: string | undefined): AgentResult {
  const usage = normalizeUsage(r.totalUsage);
  return {
    ...(provider ? { provider } : {}),
    text: r.text,
    ...(output !== undefined ? { output } : {}),
    ...(usage ? { usage } : {}),
    finishReason: r.finishReason,
    modelId: r.response.modelId,
    steps: r.steps.map((s) => ({ text: s.text })),
  };
}

function providerOf(model: LanguageModel): string | undefined {
  return typeof model === "string" ? model.split("/")[0] : typeof model.provider === "string" ? model.provider : undefined;
}

/** AI SDK timeout from Flow's: the idle limit becomes the per-chunk limit of a stream. */
function sdkTimeout(t: AgentTimeout): number | { totalMs?: number; chunkMs?: number } {
  if (typeof t === "number") return t;
  return { ...(t.totalMs !== undefined ? { totalMs: t.totalMs } : {}), ...(t.idleMs !== undefined ? { chunkMs: t.idleMs } : {}) };
}

/**
 * The AI SDK prompt of a call: `messages` win over `prompt`; system messages are taken out
 * (the AI SDK wants them in `instructions`) and returned as `system`.
 */
function toCallPrompt(args: AgentGenerateOptions): { system?: string; call: { prompt: string } | { messages: ModelMessage[] } } {
  if (!args.messages?.length) return { call: { prompt: args.prompt ?? "" } };
  const system = args.messages.filter((m) => m.role === "system").map((m) => textOf(m.content));
  const messages = args.messages.filter((m) => m.role !== "system").map(toModelMessage);
  return { ...(system.length ? { system: system.join("\n\n") } : {}), call: { messages } };
}

function toModelMessage(m: AgentMessage): ModelMessage {
  if (m.role === "tool" || typeof m.content !== "string") return m as ModelMessage;
  return { role: m.role as "user" | "assistant", content: m.content };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("");
  return JSON.stringify(content);
}
