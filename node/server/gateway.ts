/**
 * @module node/server/gateway
 * `Gateway` (SPEC.md "Server and gateway configuration"): a multi-workflow control plane on
 * one port or Unix socket. It is a facade over small parts: the host that runs workflows
 * (gateway-host.ts, over core/api's LocalGatewayHost), the domain API (core/api/handler.ts),
 * the Node-only routes (gateway-routes.ts), WebSockets (ws/), cron (cron/), webhooks
 * (webhooks/), the out-of-process event bridge (event-bridge.ts), auth (auth/) and metrics.
 * See docs/hosting.md "Gateway".
 */
import { existsSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createDomainHandler, type DomainHandler, nextFireOf } from "../../core/api/index.js";
import { ANNOTATIONS } from "../../core/api/internal.js";
import { assertInputFits } from "../../core/engine/internal.js";
import type { FlowWorkflow } from "../../core/engine/index.js";
import type { Authenticate, CallerIdentity } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import { gatewayAuthenticate } from "./auth/index.js";
import { CronScheduler, gatewayCronId } from "./cron/cron-scheduler.js";
import { EventBridge } from "./event-bridge.js";
import { ExtensionRegistry, type GatewayExtension } from "./extensions.js";
import { GatewayMetrics } from "./gateway-metrics.js";
import { GatewayRunHost } from "./gateway-host.js";
import { cronPollMs, GATEWAY_DEFAULTS, type GatewayOptions, type GatewayRegisterOptions, type GatewayWebhookConfig, type ResolvedGatewayOptions, resolveGatewayOptions } from "./gateway-options.js";
import { gatewayFetch } from "./gateway-routes.js";
import { TeamGateway } from "../sync/index.js";
import { gatewayUiMounts, workflowUiMount } from "./ui/ui-config.js";
import type { UiMounts } from "./ui/ui-mounts.js";
import { WsEndpoint } from "./ws/ws-endpoint.js";
import { WriteOnce } from "./write-once.js";

/**
 * Where `listen` binds: a TCP port (default 7331) and host, or a Unix socket `path`.
 * @example
 * await gateway.listen({ path: "/run/flow/gateway.sock" });
 */
export interface GatewayListenOptions {
  port?: number;
  host?: string;
  /** A Unix socket path; `port` and `host` are then ignored. A stale socket file is replaced. */
  path?: string;
}

/**
 * What `close` does with runs still executing.
 * @example
 * await gateway.close({ runs: "pause" }); // a restart resumes them
 */
export interface GatewayCloseOptions {
  /** `cancel` (default, SPEC.md "aborts active runs"): status `cancelled`; `pause`: parked as `paused`, resumable. */
  runs?: "cancel" | "pause";
}

/**
 * A gateway hosting workflows over HTTP, WebSocket, cron and webhooks.
 * @example
 * const gateway = new Gateway({ auth: { mode: "token", tokens: { s3cret: { role: "operator", scopes: ["*"] } } } })
 *   .register("review", review, { schedule: "0 9 * * 1-5" })
 *   .register("deploy", deploy, { webhook: { secret: process.env.GITHUB_WEBHOOK_SECRET!, run: {} } });
 * const server = await gateway.listen({ port: 7331 });
 * // ... later
 * await gateway.close();
 */
export class Gateway {
  /** The options with their defaults. */
  readonly options: ResolvedGatewayOptions;
  /** The host: registered workflows, their store, and the runs this gateway executes. */
  readonly host: GatewayRunHost;
  /** The domain API (`/v1/rpc`, `/v1/api`, `/health`, `/workflows`). */
  readonly api: DomainHandler;
  readonly metrics: GatewayMetrics;
  /** Answers an HTTP request the way the listening server does (usable without `listen`). */
  readonly fetch: (req: Request) => Promise<Response>;
  /** The UIs it serves: the console (`operatorUi`), `ui`, and registered workflows' UIs. */
  readonly ui: UiMounts;
  private readonly extensions = new ExtensionRegistry();
  private readonly webhooks = new Map<string, GatewayWebhookConfig>();
  private readonly schedules = new Map<string, { schedule: string; input: Record<string, unknown> }>();
  private readonly ws: WsEndpoint;
  /** The team workspace side (`options.team`), if any. */
  private readonly team: TeamGateway | undefined;
  private scheduler: CronScheduler | undefined;
  private bridge: EventBridge | undefined;
  private unwatchMembers: (() => void) | undefined;
  private server: Server | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(options: GatewayOptions = {}) {
    this.options = resolveGatewayOptions(options, process.cwd());
    const o = this.options;
    this.host = new GatewayRunHost({
      runDefaults: { rootDir: o.workspaceRoot, ...(o.cliAgentTools ? { cliAgentToolsDefault: o.cliAgentTools } : {}), ...(o.prices ? { prices: o.prices } : {}), ...(o.tracing !== undefined ? { tracing: o.tracing } : {}) },
    });
    this.team = o.team ? new TeamGateway(o.team, () => this.host.db.store, () => this.host.now()) : undefined;
    const baseAuthenticate = gatewayAuthenticate(o.auth, { now: () => this.host.now() });
    // Once per request: the write-id and team layers ask who calls before the domain API does.
    const authenticate = oncePerRequest(this.team ? this.team.authenticate(baseAuthenticate) : baseAuthenticate);
    // `/health` says whether team workspaces are served, so a console asks `ext.workspace.list` only then.
    const features = this.team && !o.features.includes("team") ? [...o.features, "team"] : o.features;
    this.api = createDomainHandler({ host: this.host, authenticate, maxBodyBytes: o.maxBodyBytes, protocol: o.protocol, features, heartbeatMs: o.heartbeatMs, extensions: this.extensions });
    this.ws = new WsEndpoint({
      host: this.host,
      authenticate: this.api.authenticate,
      invoke: this.api.invoke,
      extensions: this.extensions,
      protocol: o.protocol,
      features,
      heartbeatMs: o.heartbeatMs,
      eventWindowSize: o.eventWindowSize,
      maxSubscriberBufferBytes: o.maxSubscriberBufferBytes,
      maxConnections: o.maxConnections,
      maxPayload: o.maxPayload,
      allowedOrigins: o.auth?.allowedOrigins,
      onFrame: (direction, kind) => this.metrics.wsFrames.inc({ direction, kind }),
      onSubscriptionDropped: (code) => this.metrics.droppedSubscriptions.inc({ code }),
    });
    this.metrics = new GatewayMetrics(
      { changes: this.host.changes, activeRunCount: () => this.host.activeRuns().length, subscriptionCount: () => this.host.subscriptionCount },
      () => this.ws.connectionCount,
    );
    this.ui = gatewayUiMounts(o);
    const team = this.team;
    if (team) this.extensions.add("workspace", team.extension());
    // Writes: each `flow-write-id` applies once (write-once.ts), and a team's answers carry txids.
    const writeOnce = new WriteOnce({ store: () => this.host.db.store, workspaceId: o.team?.workspaceId ?? "", authenticate: this.api.authenticate, now: () => this.host.now(), maxBodyBytes: o.maxBodyBytes });
    const apiFetch = writeOnce.wrap(team ? team.withTxids(this.api.fetch, this.api.authenticate) : this.api.fetch);
    this.fetch = gatewayFetch({
      host: this.host,
      ui: this.ui.serve,
      api: { ...this.api, fetch: apiFetch },
      metrics: this.metrics,
      webhooks: this.webhooks,
      allowedOrigins: o.auth?.allowedOrigins,
      maxBodyBytes: o.maxBodyBytes,
      isClosing: () => this.closing,
      ...(team ? { sync: { serves: (path: string) => team.serves(path), answer: (req: Request) => team.sync(req, authenticate) } } : {}),
    });
  }

  /**
   * Registers a workflow under `key`: its runs are launched as `launchRun({ workflow: key })`,
   * a `schedule` writes the cron row `gateway:<key>`, a `webhook` answers `POST /webhooks/<key>`.
   */
  register(key: string, workflow: FlowWorkflow, options: GatewayRegisterOptions = {}): this {
    if (this.closing) throw new FlowError("INVALID_ARGUMENT", `Gateway is closed; cannot register "${key}".`, { workflow: key });
    if (options.webhook && !options.webhook.secret) throw new FlowError("INVALID_ARGUMENT", `The webhook of "${key}" needs a secret.`, { workflow: key });
    if (options.schedule) {
      nextFireOf(options.schedule, Date.now());
      assertInputFits(workflow.schemaRegistry?.input, options.scheduleInput ?? {});
    }
    if (options.ui) workflow.ui ??= options.ui === true ? { kind: "ui" } : { kind: "ui", ...options.ui };
    if (workflow.ui?.kind === "ui") this.ui.add(workflowUiMount(key, workflow.ui, this.options.workspaceRoot, { title: workflow.ui.title ?? workflow.readableName ?? key }));
    this.host.register(key, workflow);
    if (options.webhook) this.webhooks.set(key, options.webhook);
    if (options.schedule) {
      const schedule = { schedule: options.schedule, input: options.scheduleInput ?? {} };
      this.schedules.set(key, schedule);
      if (this.scheduler) void this.writeSchedule(key, schedule);
    }
    return this;
  }

  /** Adds extension RPC methods and streams under `namespace` (method `ext.<namespace>.<key>`). */
  extend(namespace: string, definition: GatewayExtension): this {
    this.extensions.add(namespace, definition);
    return this;
  }

  /**
   * Binds the server, then resolves once the cron schedules are written, orphaned runs were
   * picked up, and the scheduler and event bridge have started.
   */
  async listen(opts: GatewayListenOptions = {}): Promise<Server> {
    if (this.server) throw new FlowError("INVALID_ARGUMENT", "This gateway is listening already; close it first.");
    if (this.closing) throw new FlowError("INVALID_ARGUMENT", "This gateway was closed; create a new one.");
    if (this.host.listWorkflows().length === 0) throw new FlowError("INVALID_ARGUMENT", "Register at least one workflow before listen(): its store holds runs, crons and webhook deliveries.");
    const o = this.options;
    const store = this.host.db.store;
    const { clock, vcs, recordSnapshots } = this.host.db.binding.env;
    // The workspace's first snapshot is taken now, in the background, as `flow up` takes it
    // before it loads the workflow file: the first run there finds it taken, and the watch says
    // what changed since (docs/time-travel.md "When a snapshot is taken").
    if (vcs && recordSnapshots !== false) vcs.prepare?.(o.workspaceRoot);
    this.scheduler = new CronScheduler({
      store,
      clock,
      pollMs: cronPollMs(o.heartbeatMs),
      serves: (key) => this.host.listWorkflows().some((w) => w.key === key),
      launch: async ({ workflowKey, runId, input, auth, cronId }) => {
        try {
          await this.host.startRun({ workflowKey, runId, input, auth, annotations: { [ANNOTATIONS.cron]: cronId } });
          this.metrics.cronFirings.inc({ cron: cronId, result: "started" });
        } catch (error) {
          this.metrics.cronFirings.inc({ cron: cronId, result: "failed" });
          throw error;
        }
      },
      onError: (error, cronId) => this.warn(`cron ${cronId ?? "poll"} failed: ${(error as Error).message}`),
      afterPoll: async () => void (await this.host.pickUpRuns()),
    });
    await this.team?.ready();
    for (const [key, schedule] of this.schedules) await this.writeSchedule(key, schedule);
    if (o.outOfProcessEventBridge) this.host.bridge = this.bridge = new EventBridge(this.host, o.outOfProcessEventBridgePollMs);
    await this.host.pickUpRuns();

    // @hono/node-server loads when a gateway listens (docs/package.md "What loads when").
    const { getRequestListener } = await import("@hono/node-server");
    const server = createServer({ headersTimeout: o.headersTimeout, requestTimeout: o.requestTimeout }, getRequestListener(this.fetch));
    server.on("upgrade", (req, socket, head) => {
      if (this.ws.accepts(req)) this.ws.handleUpgrade(req, socket, head);
      else socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    });
    await bind(server, opts);
    this.server = server;
    this.ws.start();
    this.unwatchMembers = this.team?.watchMembers(() => this.ws.revalidate());
    this.bridge?.start();
    this.scheduler.start();
    return server;
  }

  /**
   * Stops taking requests, stops the scheduler and the bridge, closes every WebSocket,
   * aborts the runs this gateway executes (see `GatewayCloseOptions`) and waits for them,
   * then closes the server. Idempotent.
   */
  close(opts: GatewayCloseOptions = {}): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      await this.scheduler?.stop();
      this.unwatchMembers?.();
      await this.bridge?.stop();
      await this.ws.close();
      await this.host.close({ cancel: (opts.runs ?? "cancel") === "cancel" });
      const server = this.server;
      if (server) {
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await done;
      }
      this.metrics.base.close();
    })();
    return this.closed;
  }

  private async writeSchedule(key: string, s: { schedule: string; input: Record<string, unknown> }): Promise<void> {
    try {
      await this.scheduler!.schedule(gatewayCronId(key), key, s.schedule, s.input);
    } catch (error) {
      if (!this.server) throw error;
      this.warn(`schedule of "${key}" could not be written: ${(error as Error).message}`);
    }
  }

  private warn(message: string): void {
    try {
      this.host.db.binding.env.warn(`Gateway: ${message}`);
    } catch {
      process.emitWarning(`Gateway: ${message}`);
    }
  }
}

/** `authenticate` answering each Request once, however many layers ask. */
function oncePerRequest(authenticate: Authenticate): Authenticate {
  const seen = new WeakMap<Request, Promise<CallerIdentity | null>>();
  return (req) => {
    let caller = seen.get(req);
    if (!caller) seen.set(req, (caller = authenticate(req)));
    return caller;
  };
}

function bind(server: Server, opts: GatewayListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const ready = () => {
      server.off("error", reject);
      resolve();
    };
    if (opts.path) {
      if (existsSync(opts.path)) rmSync(opts.path, { force: true });
      server.listen(opts.path, ready);
    } else server.listen(opts.port ?? GATEWAY_DEFAULTS.port, opts.host, ready);
  });
}
