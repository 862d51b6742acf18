/**
 * @module node/server
 * The Node server: `startServer`, `createServeApp`, the Gateway (listen, WebSocket, cron,
 * webhooks, auth, metrics, the console) around core/api's handler. Other areas import from here only.
 */
export { assertOriginAllowed, gatewayAuthenticate } from "./auth/index.js";
export type {
  AuthClock,
  GatewayAuthConfig,
  JwtAuthConfig,
  TokenAuthConfig,
  TokenGrant,
  TrustedProxyAuthConfig,
} from "./auth/index.js";
export type { ExtensionContext, GatewayExtension } from "./extensions.js";
export { cronPollMs, GATEWAY_DEFAULTS, resolveGatewayOptions } from "./gateway-options.js";
export type {
  GatewayOptions,
  GatewayRegisterOptions,
  GatewayUiConfig,
  GatewayWebhookConfig,
  ResolvedGatewayOptions,
} from "./gateway-options.js";
export { Gateway } from "./gateway.js";
export type { GatewayCloseOptions, GatewayListenOptions } from "./gateway.js";
export { createFlowMetrics } from "./metrics.js";
export type { FlowMetrics, MetricsSource } from "./metrics.js";
export { createServeApp } from "./serve-app.js";
export type { ServeApp, ServeOptions } from "./serve-app.js";
export { startServer } from "./start-server.js";
export type { FlowServer, ServerOptions } from "./start-server.js";
export { untilStopSignal } from "./stop-signals.js";
export type { UiMount, UiMounts } from "./ui/ui-mounts.js";
export type { UiFile, UiSource } from "./ui/ui-source.js";
export { signWebhookBody, verifyWebhookSignature } from "./webhooks/signature.js";
export type { WebhookResult } from "./webhooks/webhook-handler.js";
export type {
  ClientFrame,
  ConnectFrame,
  RequestFrame,
  RunSubscriptionRequest,
  ServerFrame,
} from "./ws/frames.js";
