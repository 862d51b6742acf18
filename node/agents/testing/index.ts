/**
 * @module node/agents/testing
 * The door of the agents' testing kit (a provider server that speaks the model APIs' wire
 * protocols, fake coding-agent CLIs), apart from node/agents/index.ts so that nothing but
 * `durable-flow/testing` (node/testing/index.ts) and tests load it.
 */
export { FAKE_CLI_NAMES, installFakeClis } from "./fake-cli.js";
export type { FakeCliName, FakeCliRecord, FakeClis, FakeCliScenario } from "./fake-cli.js";
export { startProviderServer } from "./provider-server.js";
export type {
  ProviderServer,
  ProviderServerOptions,
  RecordedRequest,
  ScriptedToolCall,
  ScriptedTurn,
  SentEvent,
} from "./provider-server.js";
