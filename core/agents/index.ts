/**
 * @module core/agents
 * Agents over HTTP model SDKs: running an agent turn, its transcript, usage and prices, model
 * capabilities, structured output and failure classification. Other areas import from here only.
 * Every name here is public: `durable-flow/core` re-exports this door whole, so a name added
 * here is published.
 */
export {
  CLI_AGENT_ENGINES,
  defaultCapabilityRegistry,
  FLOW_ORCHESTRATE_SKILL_ID,
  hashCapabilityRegistry,
  normalizeCapabilityRegistry,
} from "./capabilities.js";
export type { AgentCapabilityRegistry, CliAgentEngine, RuntimeToolSource } from "./capabilities.js";
export {
  classifyAgentError,
  classifyFailureText,
  DEFAULT_QUOTA_BACKOFF_MS,
  parseResetTime,
  retryAtFromHeaders,
} from "./failure.js";
export type { AgentFailure, AgentFailureKind } from "./failure.js";
export {
  correctionPrompt,
  extractAgentOutput,
  jsonSchemaOf,
  parseJsonFromText,
  REQUIRED_OUTPUT_MARKER,
  withRequiredOutput,
} from "./output.js";
export { costOf, DEFAULT_PRICES, priceOf } from "./prices.js";
export type { ModelPrice, PriceTable } from "./prices.js";
export { agentSpendOf, DEFAULT_MAX_SCHEMA_RETRIES, runAgentTask } from "./run-agent.js";
export type { AgentSpend } from "./run-agent.js";
export type { AgentAttemptMeta, AgentSessionRef, AgentTaskInput } from "./run-agent.js";
export { HostedChatAgent } from "./sdk/hosted-chat-agent.js";
export type { HostedChatAgentOptions } from "./sdk/hosted-chat-agent.js";
export { HostedMessagesAgent } from "./sdk/hosted-messages-agent.js";
export type { HostedMessagesAgentOptions } from "./sdk/hosted-messages-agent.js";
export {
  LOCAL_SERVER_API_KEY_ENV,
  LOCAL_SERVER_BASE_URL_ENV,
  LOCAL_SERVER_DEFAULT_MODEL,
  LocalServerAgent,
} from "./sdk/local-server-agent.js";
export type { LocalServerAgentOptions } from "./sdk/local-server-agent.js";
export { toSdkTools } from "./sdk/sdk-tools.js";
export type { AgentToolSet } from "./sdk/sdk-tools.js";
export { ToolLoopSdkAgent } from "./sdk/tool-loop-sdk-agent.js";
export type { SdkAgentOptions } from "./sdk/tool-loop-sdk-agent.js";
export { buildTranscripts } from "./transcript-view.js";
export type { TranscriptAttempt, TranscriptGeneration, TranscriptToolCall } from "./transcript-view.js";
export { AttemptTranscript, GenerationRecorder } from "./transcript.js";
export type { AttemptTranscriptOptions, GenerationEnd, TranscriptSink } from "./transcript.js";
export { isAgentLike } from "./types.js";
export type {
  AgentActionKind,
  AgentEvent,
  AgentGenerateOptions,
  AgentLike,
  AgentMessage,
  AgentResult,
  AgentTimeout,
  AgentUsage,
} from "./types.js";
export { addUsage, normalizeUsage, rollUpUsage } from "./usage.js";
export { EventSpend, type Spend, sumSpend, withInFlight } from "./event-spend.js";
