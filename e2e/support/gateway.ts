/**
 * @module e2e/support/gateway
 * A real Gateway for browser tests: in this process, on a free loopback port, over a fresh
 * SQLite file, with the app's workflows (scripts/app-gateway.ts) and the built app served at
 * `/` and `/console` (built first with `ensureAppBuilt`).
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Gateway, GatewayOptions } from "durable-flow";
import { createAppGateway } from "../../scripts/app-gateway.js";
import { ensureAppBuilt } from "./app.js";

/** A listening app Gateway. */
export interface AppGateway {
  gateway: Gateway;
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  dbPath: string;
  close(): Promise<void>;
}

/**
 * Builds the app if needed, then starts a Gateway serving it.
 * @example
 * const gw = await startAppGateway();
 * await page.goto(`${gw.url}/`);
 * await gw.close();
 */
export async function startAppGateway(opts: { options?: GatewayOptions; dbPath?: string } = {}): Promise<AppGateway> {
  await ensureAppBuilt();
  const dbPath = opts.dbPath ?? join(mkdtempSync(join(tmpdir(), "flow-e2e-")), "flow.db");
  const gateway = createAppGateway({ dbPath, ...(opts.options ? { options: opts.options } : {}) });
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  const { port } = server.address() as AddressInfo;
  return { gateway, url: `http://127.0.0.1:${port}`, dbPath, close: () => gateway.close() };
}
