/**
 * @module node/testing
 * `durable-flow/testing`: the kit Flow's own tests use to test agents without a model or a CLI
 * (docs/agents.md, "Testing your agents"). Node only, and never loaded by the main entry.
 *
 * - {@link startProviderServer}: a local server that speaks OpenAI chat completions, OpenAI
 *   Responses and Anthropic Messages (JSON or server-sent events) with scripted answers: text
 *   (optionally paced word by word), tool calls, JSON objects and HTTP errors. Point a real
 *   AI SDK provider (`HostedChatAgent`, `HostedMessagesAgent`, `LocalServerAgent`) at its `url`.
 * - {@link installFakeClis}: fake executables of the thirteen coding-agent CLIs on a temporary
 *   `PATH` directory, each printing its CLI's real output format or a scripted scenario.
 *
 * @example
 * ```ts
 * import { HostedChatAgent } from "durable-flow";
 * import { startProviderServer } from "durable-flow/testing";
 *
 * const server = await startProviderServer([{ text: '{"answer":42}' }]);
 * const agent = new HostedChatAgent({ model: "gpt-5-mini", baseURL: server.url, apiKey: "test" });
 * // ... run a workflow whose Task uses `agent`, then:
 * await server.close();
 * ```
 */
export { startProviderServer } from "../agents/testing/index.js";
export type { ProviderServer, ProviderServerOptions, RecordedRequest, ScriptedToolCall, ScriptedTurn, SentEvent } from "../agents/testing/index.js";
export { FAKE_CLI_NAMES, installFakeClis } from "../agents/testing/index.js";
export type { FakeCliName, FakeCliRecord, FakeClis, FakeCliScenario } from "../agents/testing/index.js";

// For Flow's other areas (not part of the documented entry).
export { tempDir } from "./temp-dir.js";
