/**
 * @module node/server/gateway-metrics
 * `/metrics` of the Gateway: the metrics every hosting surface has (node/server/metrics.ts:
 * requests, run events, active runs, subscriptions, process) plus what only a gateway has —
 * WebSocket connections and frames, webhook deliveries and cron firings. See docs/hosting.md
 * "Metrics".
 */
import type { Counter } from "prom-client";
import { createFlowMetrics, type FlowMetrics, type MetricsSource, promClient } from "./metrics.js";

/**
 * The gateway's metrics.
 * @example
 * const metrics = new GatewayMetrics({ changes: host.changes, activeRunCount: () => 0, subscriptionCount: () => 0 }, () => 0);
 * metrics.webhookDeliveries.inc({ webhook: "deploy", result: "accepted" });
 */
export class GatewayMetrics {
  readonly base: FlowMetrics;
  readonly wsFrames: Counter<"direction" | "kind">;
  readonly webhookDeliveries: Counter<"webhook" | "result">;
  readonly cronFirings: Counter<"cron" | "result">;
  readonly droppedSubscriptions: Counter<"code">;

  constructor(source: MetricsSource, wsConnections: () => number) {
    const { Counter, Gauge } = promClient();
    this.base = createFlowMetrics(source);
    const registers = [this.base.registry];
    this.wsFrames = new Counter({ name: "flow_gateway_ws_frames_total", help: "WebSocket frames, by direction and type.", labelNames: ["direction", "kind"], registers });
    this.webhookDeliveries = new Counter({ name: "flow_gateway_webhook_deliveries_total", help: "Webhook deliveries, by webhook and result (accepted, duplicate, refused).", labelNames: ["webhook", "result"], registers });
    this.cronFirings = new Counter({ name: "flow_gateway_cron_firings_total", help: "Cron firings, by cron id and result (started, failed).", labelNames: ["cron", "result"], registers });
    this.droppedSubscriptions = new Counter({ name: "flow_gateway_subscriptions_dropped_total", help: "Run subscriptions the gateway dropped with run.error (a subscriber too slow to keep up).", labelNames: ["code"], registers });
    new Gauge({
      name: "flow_gateway_ws_connections",
      help: "Open WebSocket connections (and upgrades in their handshake).",
      registers,
      collect() {
        this.set(wsConnections());
      },
    });
  }
}
