/**
 * @module core/agents/sdk/local-server-agent
 * SPEC.md "Local-server preset agent": a model served on your own machine or network by any
 * OpenAI-compatible server (llama.cpp, vLLM, Ollama, LM Studio...), through the AI SDK's
 * OpenAI-compatible provider. Defaults suit a local Hermes model (docs/agents.md).
 */
import { FlowError } from "../../errors.js";
import { lazyModel, ToolLoopSdkAgent } from "./tool-loop-sdk-agent.js";
import type { SdkAgentOptions } from "./tool-loop-sdk-agent.js";

/** Environment variable read when `baseURL` is not given. */
export const LOCAL_SERVER_BASE_URL_ENV = "FLOW_LOCAL_BASE_URL";
/** Environment variable read when `apiKey` is not given. */
export const LOCAL_SERVER_API_KEY_ENV = "FLOW_LOCAL_API_KEY";
/** The model, and the API key of last resort, of the local-server preset. */
export const LOCAL_SERVER_DEFAULT_MODEL = "hermes";

/**
 * Options of {@link LocalServerAgent}: `model` (default `hermes`), `baseURL` (default env
 * `FLOW_LOCAL_BASE_URL`; one of the two is required), `apiKey` (default env
 * `FLOW_LOCAL_API_KEY`, then `hermes`), `nativeStructuredOutput` (default false: most local
 * servers ignore JSON schema formats, so Flow asks for JSON in the prompt), `env` (read instead
 * of the process environment).
 * @example
 * const opts: LocalServerAgentOptions = { baseURL: "http://127.0.0.1:8080/v1" };
 */
export interface LocalServerAgentOptions extends SdkAgentOptions {
  model?: string;
  baseURL?: string;
  apiKey?: string;
  env?: Record<string, string | undefined>;
}

/**
 * An agent on a local OpenAI-compatible model server.
 * @example
 * import { LocalServerAgent } from "durable-flow";
 * const local = new LocalServerAgent({ baseURL: "http://127.0.0.1:8080/v1" }); // model "hermes"
 */
export class LocalServerAgent extends ToolLoopSdkAgent {
  readonly baseURL: string;

  constructor(options: LocalServerAgentOptions = {}) {
    const { model, baseURL, apiKey, env, ...rest } = options;
    const vars = env ?? processEnv();
    const url = baseURL ?? vars[LOCAL_SERVER_BASE_URL_ENV];
    if (!url) {
      throw new FlowError("AGENT_CONFIG_INVALID", `LocalServerAgent${rest.id ? ` ${rest.id}` : ""} needs the server's address: pass baseURL or set ${LOCAL_SERVER_BASE_URL_ENV}.`, { option: "baseURL" });
    }
    const settings = {
      name: "local-server",
      baseURL: url,
      apiKey: apiKey ?? vars[LOCAL_SERVER_API_KEY_ENV] ?? LOCAL_SERVER_DEFAULT_MODEL,
      supportsStructuredOutputs: rest.nativeStructuredOutput === true,
      includeUsage: true,
    };
    // The provider package loads at the first call (docs/package.md "What loads when").
    super(lazyModel(async () => (await import("@ai-sdk/openai-compatible")).createOpenAICompatible(settings).chatModel(model ?? LOCAL_SERVER_DEFAULT_MODEL), model ?? LOCAL_SERVER_DEFAULT_MODEL), rest, false);
    this.baseURL = url;
  }
}

/** The process's environment where there is one (Node), else empty (a browser). */
export function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}
