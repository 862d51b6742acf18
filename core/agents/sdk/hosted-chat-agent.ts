/**
 * @module core/agents/sdk/hosted-chat-agent
 * SPEC.md "Hosted provider B agent (also any compatible endpoint)": talks to OpenAI through the
 * AI SDK's OpenAI provider, or to any endpoint that speaks OpenAI's chat completions protocol
 * when `baseURL` is given (docs/agents.md).
 */
import type { LanguageModel } from "ai";
import { FlowError } from "../../errors.js";
import { lazyModel, ToolLoopSdkAgent } from "./tool-loop-sdk-agent.js";
import type { SdkAgentOptions } from "./tool-loop-sdk-agent.js";

/**
 * Options of {@link HostedChatAgent}. With a string `model`: `apiKey` (default env
 * `OPENAI_API_KEY`), `baseURL` (default OpenAI), and `api`: `responses` (OpenAI's Responses API,
 * the default without `baseURL`) or `chat` (chat completions, the default with `baseURL`, which
 * is what compatible servers speak). `nativeStructuredOutput` defaults to true.
 * @example
 * const opts: HostedChatAgentOptions = { model: "gpt-5-mini", temperature: 0 };
 */
export interface HostedChatAgentOptions extends SdkAgentOptions {
  model: string | LanguageModel;
  baseURL?: string;
  apiKey?: string;
  api?: "responses" | "chat";
}

/**
 * An agent on a hosted OpenAI model or any OpenAI-compatible endpoint.
 * @example
 * import { HostedChatAgent } from "durable-flow";
 * const writer = new HostedChatAgent({ model: "gpt-5-mini", instructions: "Write release notes." });
 * const viaProxy = new HostedChatAgent({ model: "qwen3-coder", baseURL: "http://127.0.0.1:4000/v1", apiKey: "sk-local" });
 */
export class HostedChatAgent extends ToolLoopSdkAgent {
  constructor(options: HostedChatAgentOptions) {
    const { model, baseURL, apiKey, api, ...rest } = options;
    if (typeof model !== "string" && (baseURL !== undefined || apiKey !== undefined)) {
      throw new FlowError("AGENT_CONFIG_INVALID", `HostedChatAgent${rest.id ? ` ${rest.id}` : ""}: baseURL and apiKey apply only to a string model; configure your prebuilt model instance instead.`, {
        option: baseURL !== undefined ? "baseURL" : "apiKey",
      });
    }
    if (typeof model !== "string") {
      super(model, rest, true);
      return;
    }
    const settings = { ...(baseURL !== undefined ? { baseURL } : {}), ...(apiKey !== undefined ? { apiKey } : {}) };
    const useChat = (api ?? (baseURL !== undefined ? "chat" : "responses")) === "chat";
    // The provider package loads at the first call (docs/package.md "What loads when").
    super(
      lazyModel(async () => {
        const provider = (await import("@ai-sdk/openai")).createOpenAI(settings);
        return useChat ? provider.chat(model) : provider.responses(model);
      }, model),
      rest,
      true,
    );
  }
}
