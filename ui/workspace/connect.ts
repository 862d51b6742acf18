/**
 * @module ui/workspace/connect
 * Opens a workspace: the live collections over its data client. A Gateway is read over HTTP;
 * this browser is read from the engine's worker through the worker's `fetch` (the same domain
 * API, DESIGN.md seam 2), so every view is the same code in every mode.
 */
import { QueryClient } from "@tanstack/query-core";
import { createCollections, createDataClient, type FlowCollections } from "../../core/data/index.js";
import { FlowError } from "../../core/errors.js";
import type { BrowserEngine } from "../../browser/client.js";
import type { Workspace } from "./workspaces.js";

/** An open workspace. */
export interface WorkspaceConnection {
  workspace: Workspace;
  cols: FlowCollections;
  /** What runs here: shell tools and CLI agents need a Gateway. */
  capabilities: { shellTools: boolean; cliAgents: boolean };
  /** The engine in this browser (browser workspaces only). */
  engine?: BrowserEngine;
  close(): void;
}

/** The origin the worker's `fetch` answers for (any origin works; this one reads clearly in logs). */
export const WORKER_ORIGIN = "http://flow.worker";

/**
 * Opens a workspace and starts its change stream.
 * @example
 * const conn = await connectWorkspace({ id: "browser", kind: "browser", name: "This browser" });
 * conn.cols.runs.toArray;
 */
export async function connectWorkspace(workspace: Workspace, queryClient = new QueryClient()): Promise<WorkspaceConnection> {
  if (workspace.kind === "browser") {
    const { connectBrowserEngine } = await import("../../browser/client.js");
    const engine = await connectBrowserEngine();
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: WORKER_ORIGIN }, fetch: engine.fetch });
    const cols = createCollections(data, queryClient);
    void cols.connect();
    return {
      workspace,
      cols,
      engine,
      capabilities: { shellTools: false, cliAgents: false },
      close() {
        cols.close();
        data.close();
        engine.close();
      },
    };
  }
  const url = workspace.url ?? location.origin;
  await assertTokenAccepted(workspace, url);
  const cols = createCollections({ kind: "local", apiBaseUrl: url, ...(workspace.token ? { token: workspace.token } : {}) }, queryClient);
  void cols.connect();
  return { workspace, cols, capabilities: { shellTools: true, cliAgents: true }, close: () => cols.close() };
}

/**
 * Asks the Gateway for one run with the workspace's token: a 401 (no token, or one it refused)
 * throws UNAUTHORIZED, so the app asks for a token (ui/workspace/token-prompt.tsx) instead of
 * opening views that would all fail. A network failure is left to the change stream's
 * reconnects (the views show the connection status).
 * @example
 * await assertTokenAccepted({ id: "gateway:http://127.0.0.1:7331", kind: "gateway", name: "This Gateway" }, "http://127.0.0.1:7331");
 */
export async function assertTokenAccepted(workspace: Workspace, url: string): Promise<void> {
  const headers: Record<string, string> = workspace.token ? { authorization: `Bearer ${workspace.token}` } : {};
  const res = await fetch(`${url}/v1/api/runs?limit=1`, { headers }).catch(() => undefined);
  if (res?.status === 401) {
    throw new FlowError("UNAUTHORIZED", workspace.token ? `${workspace.name} refused the saved token; paste a valid one.` : `${workspace.name} needs a token: paste one its owner gave you.`, { workspace: workspace.id });
  }
}
