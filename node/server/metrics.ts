/**
 * @module node/server/metrics
 * `/metrics` of the hosting surfaces (prom-client, Prometheus text format): requests by method
 * and status, run events by type, active runs and live event subscriptions, plus Node's
 * process metrics. One registry per server, so several servers in a process do not collide.
 */
import type { Registry } from "prom-client";
import type { ChangeFeed } from "../../core/api/index.js";
import { lazyPackage } from "../../core/util/index.js";

/** prom-client, loaded when a server makes its metrics (docs/package.md "What loads when"). */
export const promClient = lazyPackage<typeof import("prom-client")>(import.meta, "prom-client", () => import("prom-client"));

/** What the metrics read from their host. */
export interface MetricsSource {
  changes: ChangeFeed;
  /** Runs executing now. */
  activeRunCount(): number;
  /** Live run-event subscriptions (SSE and WebSocket). */
  subscriptionCount(): number;
}

/** The metrics of one server. */
export interface FlowMetrics {
  registry: Registry;
  /** Counts an answered request. */
  observe(method: string, status: number): void;
  /** The `/metrics` response. */
  respond(): Promise<Response>;
  /** Stops listening to the host. */
  close(): void;
}

/**
 * Creates the metrics of a server.
 * @example
 * const metrics = createFlowMetrics({ changes: host.changes, activeRunCount: () => host.activeRuns().length, subscriptionCount: () => host.subscriptionCount });
 * app.get("/metrics", () => metrics.respond());
 */
export function createFlowMetrics(source: MetricsSource): FlowMetrics {
  const { collectDefaultMetrics, Counter, Gauge, Registry } = promClient();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "flow_process_" });
  const requests = new Counter({ name: "flow_http_requests_total", help: "HTTP requests answered, by method and status.", labelNames: ["method", "status"], registers: [registry] });
  const events = new Counter({ name: "flow_run_events_total", help: "Run events seen by this server, by type.", labelNames: ["type"], registers: [registry] });
  new Gauge({ name: "flow_active_runs", help: "Runs this server executes now.", registers: [registry], collect() { this.set(source.activeRunCount()); } });
  new Gauge({ name: "flow_event_subscriptions", help: "Live run-event subscriptions.", registers: [registry], collect() { this.set(source.subscriptionCount()); } });
  const stop = source.changes.subscribe((change) => {
    if (change.collection === "runs") events.inc({ type: change.reason });
  });
  return {
    registry,
    observe: (method, status) => requests.inc({ method, status: String(status) }),
    respond: async () => new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } }),
    close: stop,
  };
}
