/**
 * @module core/agents/sdk/hosted-messages-agent
 * SPEC.md "Hosted provider A agent": talks to Anthropic's Messages API through the AI SDK's
 * Anthropic provider (docs/agents.md). The API key comes from `ANTHROPIC_API_KEY` (and the
 * endpoint from `ANTHROPIC_BASE_URL`) unless you pass a prebuilt model instance.
 */
import type { LanguageModel } from "ai";
import { processEnv } from "./local-server-agent.js";
import { lazyModel, ToolLoopSdkAgent } from "./tool-loop-sdk-agent.js";
import type { SdkAgentOptions } from "./tool-loop-sdk-agent.js";

/**
 * Options of {@link HostedMessagesAgent}: the SDK agent settings, a required `model` (an
 * Anthropic model id, or any prebuilt AI SDK model instance), `nativeStructuredOutput`
 * (default true: the provider's JSON schema output format).
 * @example
 * const opts: HostedMessagesAgentOptions = { model: "claude-sonnet-4-5", instructions: "Review code." };
 */
export interface HostedMessagesAgentOptions extends SdkAgentOptions {
  model: string | LanguageModel;
}

/**
 * An agent on a hosted Messages-API model (Anthropic).
 * @example
 * import { HostedMessagesAgent } from "durable-flow";
 * const reviewer = new HostedMessagesAgent({ model: "claude-sonnet-4-5", instructions: "You review pull requests." });
 * <Task id="review" output={outputs.review} agent={reviewer}>Review the diff in PR 42.</Task>
 */
export class HostedMessagesAgent extends ToolLoopSdkAgent {
  constructor(options: HostedMessagesAgentOptions) {
    const { model, ...rest } = options;
    // A provider per agent, so ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY are read when the agent
    // is made; the provider package loads at the first call.
    const env = processEnv();
    const settings = { ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}), ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}) };
    super(typeof model === "string" ? lazyModel(async () => (await import("@ai-sdk/anthropic")).createAnthropic(settings)(model), model) : model, rest, true);
  }
}
