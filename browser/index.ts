/**
 * @module browser
 * `durable-flow` as the app's browser bundle sees it: the runtime-agnostic core (workflows,
 * components, SDK agents against OpenAI-compatible endpoints, the HTTP and OpenAPI tools,
 * memory) plus the Gateway-only tools and CLI agents under their Node names, which fail with
 * NOT_AVAILABLE when used (browser/gateway-only.ts). See docs/app-browser.md.
 */
export * from "../core/index.js";
export {
  BaseCliAgent,
  bash,
  BudgetCliAgent,
  ConversationCliAgent,
  edit,
  ExecCliAgent,
  ExtendedHarnessCliAgent,
  GatewayRelayCliAgent,
  grep,
  IsolatedShareCliAgent,
  LegacyConversationCliAgent,
  LocalPresetCliAgent,
  MinimalHarnessCliAgent,
  needsGateway,
  read,
  SessionCliAgent,
  StepEventCliAgent,
  ThreadCliAgent,
  tools,
  WorkflowCliAgent,
  write,
} from "./gateway-only.js";
