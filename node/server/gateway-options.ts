/**
 * @module node/server/gateway-options
 * `GatewayOptions` (SPEC.md "Server and gateway configuration") with every default, and the
 * options `register` takes. See docs/hosting.md "Gateway".
 */
import type { PriceTable } from "../../core/agents/index.js";
import type { RunTracing } from "../../core/tracing/index.js";
import type { WorkflowViewDefinition } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import type { GatewayAuthConfig } from "./auth/types.js";
import type { GatewayTeamOptions } from "../../sync/server.js";

/**
 * SPEC.md `GatewayUiConfig`: `true` (the built-in UI) or a browser entry module to bundle and serve.
 * @example
 * const ui: GatewayUiConfig = { entry: "./ui/review.tsx", title: "Reviews" };
 */
export type GatewayUiConfig =
  | true
  | {
      /** Browser entry module, bundled and served from the gateway origin. */
      entry: string;
      /** Gateway default `/`, workflow default `/workflows/<workflowKey>`. */
      path?: string;
      title?: string;
      /** JSON-serializable boot data. */
      props?: Record<string, unknown>;
    };

/**
 * SPEC.md `GatewayWebhookConfig`.
 * @example
 * const webhook: GatewayWebhookConfig = { secret: process.env.GITHUB_WEBHOOK_SECRET!, signal: { name: "ci-done", correlationIdPath: "check_suite.head_sha" } };
 */
export interface GatewayWebhookConfig {
  /** Shared HMAC-SHA256 secret. */
  secret: string;
  /** Default `x-hub-signature-256` (as GitHub sends it). */
  signatureHeader?: string;
  /** Stripped before comparison; default `sha256=`. */
  signaturePrefix?: string;
  /** Deliver a signal to a waiting run, found by `runIdPath` or `correlationIdPath` (dot paths into the payload). */
  signal?: { name: string; correlationIdPath?: string; runIdPath?: string; payloadPath?: string };
  /** Start a run; its input is the value at `inputPath` (default: the whole payload). */
  run?: { enabled?: boolean; inputPath?: string };
}

/**
 * Options of `Gateway.register`.
 * @example
 * gateway.register("nightly", nightly, { schedule: "0 3 * * *", scheduleInput: { full: true } });
 */
export interface GatewayRegisterOptions {
  /** A cron expression (5 fields, or 6 with seconds first, as croner reads them). */
  schedule?: string;
  /** Input of the runs the schedule starts (default `{}`). */
  scheduleInput?: Record<string, unknown>;
  webhook?: GatewayWebhookConfig;
  ui?: GatewayUiConfig | WorkflowViewDefinition;
}

/**
 * SPEC.md `GatewayOptions`.
 * @example
 * const options: GatewayOptions = { heartbeatMs: 5000, maxConnections: 200, auth: { mode: "trusted-proxy" } };
 */
export interface GatewayOptions {
  /** Wire protocol version advertised (default 1). */
  protocol?: number;
  /** Advertised on `/health` and in the connect handshake (default `["streaming", "runs"]`). */
  features?: string[];
  /** WebSocket heartbeat (default 15000); the cron poll interval is this clamped to 1-15 s. */
  heartbeatMs?: number;
  /** Omitted: unauthenticated. */
  auth?: GatewayAuthConfig;
  ui?: GatewayUiConfig;
  /** Holds `.flow/`; the default `rootDir` of runs (default: the process working directory). */
  workspaceRoot?: string;
  /** The operator UI (default `{ path: "/console" }`; `false` disables). */
  operatorUi?: { path?: string; title?: string; props?: Record<string, unknown> } | false;
  /**
   * Flow's addition: prices per model (USD per million tokens) over Flow's defaults, for the
   * cost of every agent generation of the runs this Gateway hosts (docs/agents.md, "Cost").
   */
  prices?: PriceTable;
  /**
   * Flow's addition: OpenTelemetry spans for the runs this Gateway hosts (docs/tracing.md):
   * `{ tracer }` (e.g. `await createOtlpTracing()`), `true` or `false`; unset, runs trace when
   * `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
   */
  tracing?: boolean | RunTracing;
  /** Used when the top-level options are unset. */
  defaults?: { cliAgentTools?: "all" | "explicit-only"; outOfProcessEventBridge?: boolean; outOfProcessEventBridgePollMs?: number };
  /** Max body of `POST /rpc` and every other route (default 1048576). */
  maxBodyBytes?: number;
  /** Max single WebSocket frame (default 1048576). */
  maxPayload?: number;
  /** Over-limit upgrades get HTTP 503 (default 1000). */
  maxConnections?: number;
  /** Per-run replay window in frames (default 10000). */
  eventWindowSize?: number;
  /** Bridge persisted events of runs executed by another process into live streams (default true). */
  outOfProcessEventBridge?: boolean;
  /** Default 1000. */
  outOfProcessEventBridgePollMs?: number;
  /** Applied on `listen()` (default 30000). */
  headersTimeout?: number;
  /** Default 60000. */
  requestTimeout?: number;
  /**
   * Flow's addition: unsent bytes a WebSocket may hold before its run subscriptions are
   * dropped with `run.error` SUBSCRIBER_TOO_SLOW (default 8 MiB).
   */
  maxSubscriberBufferBytes?: number;
  /**
   * Flow's addition: serve a team workspace (docs/multiplayer.md): members and roles, the
   * Electric shape proxy at `/sync/<workspace>/<shape>`, and txids on write answers. Needs a
   * PostgreSQL store.
   */
  team?: GatewayTeamOptions;
}

/**
 * Every option with its default applied.
 * @example
 * const { maxConnections } = new Gateway().options; // 1000
 */
export interface ResolvedGatewayOptions {
  protocol: number;
  features: string[];
  heartbeatMs: number;
  auth: GatewayAuthConfig | undefined;
  ui: GatewayUiConfig | undefined;
  workspaceRoot: string;
  operatorUi: { path: string; title?: string; props?: Record<string, unknown> } | false;
  cliAgentTools: "all" | "explicit-only" | undefined;
  prices: PriceTable | undefined;
  tracing: boolean | RunTracing | undefined;
  maxBodyBytes: number;
  maxPayload: number;
  maxConnections: number;
  eventWindowSize: number;
  outOfProcessEventBridge: boolean;
  outOfProcessEventBridgePollMs: number;
  headersTimeout: number;
  requestTimeout: number;
  maxSubscriberBufferBytes: number;
  team: GatewayTeamOptions | undefined;
}

/**
 * SPEC.md defaults (Limits table).
 * @example
 * GATEWAY_DEFAULTS.eventWindowSize; // 10000
 */
export const GATEWAY_DEFAULTS = {
  port: 7331,
  protocol: 1,
  features: ["streaming", "runs"],
  heartbeatMs: 15_000,
  maxBodyBytes: 1_048_576,
  maxPayload: 1_048_576,
  maxConnections: 1000,
  eventWindowSize: 10_000,
  outOfProcessEventBridgePollMs: 1000,
  headersTimeout: 30_000,
  requestTimeout: 60_000,
  maxSubscriberBufferBytes: 8 * 1024 * 1024,
} as const;

/**
 * Applies the defaults; throws INVALID_ARGUMENT for a limit that is not a positive number.
 * @example
 * resolveGatewayOptions({ heartbeatMs: 500 }, process.cwd()).maxPayload; // 1048576
 */
export function resolveGatewayOptions(o: GatewayOptions, cwd: string): ResolvedGatewayOptions {
  const d = GATEWAY_DEFAULTS;
  const operatorUi = o.operatorUi === false ? false : { ...o.operatorUi, path: o.operatorUi?.path ?? "/console" };
  return {
    protocol: o.protocol ?? d.protocol,
    features: o.features ?? [...d.features],
    heartbeatMs: positive(o.heartbeatMs, d.heartbeatMs, "heartbeatMs"),
    auth: o.auth,
    ui: o.ui,
    workspaceRoot: o.workspaceRoot ?? cwd,
    operatorUi,
    cliAgentTools: o.defaults?.cliAgentTools,
    prices: o.prices,
    tracing: o.tracing,
    maxBodyBytes: positive(o.maxBodyBytes, d.maxBodyBytes, "maxBodyBytes"),
    maxPayload: positive(o.maxPayload, d.maxPayload, "maxPayload"),
    maxConnections: positive(o.maxConnections, d.maxConnections, "maxConnections"),
    eventWindowSize: positive(o.eventWindowSize, d.eventWindowSize, "eventWindowSize"),
    outOfProcessEventBridge: o.outOfProcessEventBridge ?? o.defaults?.outOfProcessEventBridge ?? true,
    outOfProcessEventBridgePollMs: positive(o.outOfProcessEventBridgePollMs ?? o.defaults?.outOfProcessEventBridgePollMs, d.outOfProcessEventBridgePollMs, "outOfProcessEventBridgePollMs"),
    headersTimeout: positive(o.headersTimeout, d.headersTimeout, "headersTimeout"),
    requestTimeout: positive(o.requestTimeout, d.requestTimeout, "requestTimeout"),
    maxSubscriberBufferBytes: positive(o.maxSubscriberBufferBytes, d.maxSubscriberBufferBytes, "maxSubscriberBufferBytes"),
    team: o.team,
  };
}

/**
 * The cron poll interval: `heartbeatMs` clamped to 1-15 s (SPEC.md Limits).
 * @example
 * cronPollMs(15000); // 15000
 * cronPollMs(200); // 1000
 */
export function cronPollMs(heartbeatMs: number): number {
  return Math.min(15_000, Math.max(1000, heartbeatMs));
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) {
    throw new FlowError("INVALID_ARGUMENT", `GatewayOptions.${name} must be a positive number (got ${String(value)}).`, { option: name });
  }
  return value;
}
