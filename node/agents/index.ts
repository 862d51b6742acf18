/**
 * @module node/agents
 * CLI agents: coding agents run as child processes (spawn), with their harnesses and presets.
 */
export { BaseCliAgent, DEFAULT_CLI_MAX_OUTPUT_BYTES } from "./cli/base-cli-agent.js";
export { plainTextInterpreter } from "./cli/cli-types.js";
export type {
  BaseCliAgentOptions,
  CliCall,
  CliCommand,
  CliInterpreter,
  InterpretedOutput,
} from "./cli/cli-types.js";
export type { ExtensionUiHandler, ExtensionUiRequest, ExtensionUiResponse } from "./cli/harness-rpc.js";
export { finishHijack, hijackNode, nativeHijackCommand, planHijack } from "./cli/hijack.js";
export type { HijackCommand, HijackInput, HijackPlan } from "./cli/hijack.js";
export { BudgetCliAgent } from "./cli/variants/budget-cli-agent.js";
export type { BudgetCliAgentOptions } from "./cli/variants/budget-cli-agent.js";
export { ConversationCliAgent } from "./cli/variants/conversation-cli-agent.js";
export type { ConversationCliAgentOptions } from "./cli/variants/conversation-cli-agent.js";
export { ExecCliAgent } from "./cli/variants/exec-cli-agent.js";
export type { ExecCliAgentOptions } from "./cli/variants/exec-cli-agent.js";
export { ExtendedHarnessCliAgent } from "./cli/variants/extended-harness-cli-agent.js";
export type { ExtendedHarnessCliAgentOptions } from "./cli/variants/extended-harness-cli-agent.js";
export { GatewayRelayCliAgent } from "./cli/variants/gateway-relay-cli-agent.js";
export type { GatewayRelayCliAgentOptions } from "./cli/variants/gateway-relay-cli-agent.js";
export { IsolatedShareCliAgent } from "./cli/variants/isolated-share-cli-agent.js";
export type { IsolatedShareCliAgentOptions } from "./cli/variants/isolated-share-cli-agent.js";
export { LegacyConversationCliAgent } from "./cli/variants/legacy-conversation-cli-agent.js";
export type { LegacyConversationCliAgentOptions } from "./cli/variants/legacy-conversation-cli-agent.js";
export { LocalPresetCliAgent } from "./cli/variants/local-preset-cli-agent.js";
export type { LocalPresetCliAgentOptions } from "./cli/variants/local-preset-cli-agent.js";
export { MinimalHarnessCliAgent } from "./cli/variants/minimal-harness-cli-agent.js";
export type { MinimalHarnessCliAgentOptions } from "./cli/variants/minimal-harness-cli-agent.js";
export { SessionCliAgent } from "./cli/variants/session-cli-agent.js";
export type { SessionCliAgentOptions } from "./cli/variants/session-cli-agent.js";
export { StepEventCliAgent } from "./cli/variants/step-event-cli-agent.js";
export type { StepEventCliAgentOptions } from "./cli/variants/step-event-cli-agent.js";
export { ThreadCliAgent } from "./cli/variants/thread-cli-agent.js";
export type { ThreadCliAgentOptions } from "./cli/variants/thread-cli-agent.js";
export { WorkflowCliAgent } from "./cli/variants/workflow-cli-agent.js";
export type { WorkflowCliAgentOptions } from "./cli/variants/workflow-cli-agent.js";
