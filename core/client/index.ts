/**
 * @module durable-flow/gateway-client
 * The client of a Flow Gateway (SPEC.md "Gateway client"): `GatewayClient` with a typed method
 * per RPC method, WebSocket connections, run event streams (resilient ones reconnect with
 * backoff), errors and the backoff rule. Runs in browsers, workers and Node 20+; nothing here
 * imports Node built-ins. See docs/client.md.
 */
export { gatewayBackoffDelay } from "./backoff.js";
export type { GatewayBackoffOptions } from "./backoff.js";
export { GatewayConnection } from "./connection.js";
export type { DevToolsFrame, ExtensionStreamFrame, GatewayEventFrame, GatewayHandshake, RunEventFrame, RunGapResyncFrame, RunHeartbeatFrame, WebSocketConstructor, WebSocketLike } from "./connection.js";
export { GatewayRpcError, isGatewayUnavailableError } from "./errors.js";
export type { GatewayRpcErrorInit } from "./errors.js";
export { GatewayClient } from "./gateway-client.js";
export type { CallOptions, GatewayClientIdentity, GatewayClientOptions, ResilientStreamOptions } from "./gateway-client.js";
export type { GatewayRpcMethods, GatewayWorkflows, RpcParams, RpcResult, UnaryRpcMethodName, WorkflowInputOf } from "./rpc-map.js";
export type { EnvelopeError, RpcEnvelope } from "../api/index.js";

// For Flow's other areas (not part of the documented entry).
export { envelopeError, readEnvelope } from "./errors.js";
export { isEventStream, readSse } from "./sse-reader.js";
export type { SseMessage } from "./sse-reader.js";
