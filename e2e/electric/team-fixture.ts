/**
 * @module e2e/electric/team-fixture
 * Test helper (test code only, never shipped): a team Gateway serving the app's `release` workflow from a fresh
 * PostgreSQL schema, with the Electric stand-in (e2e/electric) behind its shape proxy, token
 * auth for four users (`ana` owns the workspace; `bea` approves, `dan` reads, `cy` is no
 * member) and an HTTP helper per user.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { QueryClient } from "@tanstack/query-core";
import type { CollectionsOptions, FlowCollections } from "../../core/data/index.js";
import { createTeamCollections, type TeamOfflineOptions } from "../../sync/index.js";
import { type ElectricStandin, startElectricStandin } from "./standin.js";
import { releaseWorkflows } from "../../examples/app-workflows.js";
import { createFlowPostgres } from "../../node/create-flow-postgres.js";
import { freshPostgresSchema } from "../../node/testing/postgres-test-db.js";
import { Gateway } from "../../node/server/gateway.js";
import type { GatewayOptions } from "../../node/server/gateway-options.js";

export const ELECTRIC_SECRET = "electric-secret";
export const TEAM_USERS = ["ana", "bea", "cy", "dan"] as const;
export type TeamUser = (typeof TEAM_USERS)[number];

export interface TeamFixture {
  gateway: Gateway;
  url: string;
  electric: ElectricStandin;
  schema: string;
  /** The URL of the workspace's store (for more Gateways on it). */
  storeUrl: string;
  /** An HTTP call as `who` (null: no credentials); the body parsed. */
  call(who: TeamUser | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  /** `who`'s collections in multiplayer mode through the fixture's Gateway (closed with the fixture); `offline`: kept shapes, a write queue. */
  member(who: TeamUser, options?: CollectionsOptions, offline?: TeamOfflineOptions): FlowCollections;
  /** Launches `release` (one shard, no waiting) as `who`. */
  launch(who: TeamUser): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * A listening team Gateway serving `release` from the store at `connectionString`; the
 * caller closes it.
 */
export async function startTeamGateway(connectionString: string, electricUrl: string, workspaceId = "acme", options: Pick<GatewayOptions, "heartbeatMs" | "ui" | "auth" | "outOfProcessEventBridgePollMs"> = {}): Promise<{ gateway: Gateway; url: string }> {
  const flow = await createFlowPostgres(releaseWorkflows.schemas, { connectionString });
  const { release } = releaseWorkflows.build(flow as never);
  const gateway = new Gateway({
    // Not node/testing/backends' tempDir: that module needs vitest, and bench/multiplayer.ts uses this fixture too.
    workspaceRoot: mkdtempSync(join(tmpdir(), "flow-team-")),
    auth: { mode: "token", tokens: Object.fromEntries(TEAM_USERS.map((u) => [u, { role: "operator", scopes: ["*"], userId: u }])) },
    team: { workspaceId, name: "Acme", electricUrl, electricSecret: ELECTRIC_SECRET, owners: ["ana"] },
    ...options,
  }).register("release", release);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" }).catch(async (error: unknown) => {
    await gateway.close();
    throw error;
  });
  return { gateway, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Starts the fixture; bea (approve) and dan (read) are added by ana. `ui: true` serves the built app (e2e/team.test.ts). */
export async function startTeamFixture(options: Pick<GatewayOptions, "ui"> = {}): Promise<TeamFixture> {
  const schema = await freshPostgresSchema();
  const electric = await startElectricStandin({ connectionString: schema.url, secret: ELECTRIC_SECRET, longPollTimeoutMs: 1000 });
  // heartbeatMs 1000: the cron poll, which also picks up runs of dead Gateways, runs every second.
  const { gateway, url } = await startTeamGateway(schema.url, electric.url, "acme", { heartbeatMs: 1000, ...options });
  const call: TeamFixture["call"] = async (who, method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(who ? { authorization: `Bearer ${who}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  await call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "approve" });
  await call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "dan", role: "read" });
  const members: FlowCollections[] = [];
  return {
    gateway,
    url,
    electric,
    schema: schema.schema,
    storeUrl: schema.url,
    call,
    member(who, options = {}, offline = {}) {
      const cols = createTeamCollections({ kind: "multiplayer", apiBaseUrl: url, electricBaseUrl: `${url}/sync`, workspaceId: "acme", token: who }, new QueryClient(), options, offline);
      members.push(cols);
      return cols;
    },
    launch: (who) => call(who, "POST", "/v1/api/runs", { workflow: "release", input: { service: "api", shards: 1, workMs: 0 } }),
    async close() {
      for (const c of members) c.close();
      await gateway.close();
      await electric.close();
      await schema.drop();
    },
  };
}

/** A team Gateway in a process of its own (team-gateway-process.ts). */
export interface SpawnedTeamGateway {
  url: string;
  /** SIGKILLs the process and resolves once it exited. */
  kill(): Promise<void>;
}

/**
 * Starts a second team Gateway on the workspace's store in a process of its own, so a test can
 * SIGKILL it mid-run; resolves once it listens. `node --import tsx`, not the tsx CLI (which runs
 * the script in a child of its own): the SIGKILL must reach the process that runs the Gateway.
 * @example
 * const second = await spawnTeamGateway(t.storeUrl, t.electric.url);
 * await second.kill();
 */
export async function spawnTeamGateway(storeUrl: string, electricUrl: string, timeoutMs = 60_000): Promise<SpawnedTeamGateway> {
  const script = fileURLToPath(new URL("./team-gateway-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, storeUrl, electricUrl], { cwd: fileURLToPath(new URL("../..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The team Gateway process did not listen within ${timeoutMs} ms; its output: ${out}`)), timeoutMs);
      child.on("exit", () => reject(new Error(`The team Gateway process exited before it listened; its output: ${out}`)));
      child.stdout.on("data", (d) => {
        out += d;
        const found = /listening on (\S+)/.exec(out)?.[1];
        if (found) (clearTimeout(timer), resolve(found));
      });
    });
    return { url, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
