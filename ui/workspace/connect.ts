/**
 * @module ui/workspace/connect
 * Opens a workspace: the live collections over its data client. A Gateway is read over HTTP;
 * this browser is read from the engine's worker through the worker's `fetch` (the same domain
 * API, DESIGN.md seam 2), so every view is the same code in every mode.
 */
import { QueryClient } from "@tanstack/query-core";
import { type Accessor, createSignal } from "solid-js";
import { API_ROUTES, routeUrl } from "../../core/api/wire/index.js";
import { createCollections, createDataClient, type FlowCollections } from "../../core/data/index.js";
import { FlowError } from "../../core/errors.js";
import { createTeamCollections, WriteQueue } from "../../sync/index.js";
import type { BrowserEngine } from "../../browser/client.js";
import { createLastSeen, createWriteStore, type LastSeen } from "./last-seen.js";
import { findTeamWorkspaces, type TeamWorkspace } from "./team-rpc.js";
import { saveWorkspace, type Workspace } from "./workspaces.js";

/** An open workspace. */
export interface WorkspaceConnection {
  workspace: Workspace;
  cols: FlowCollections;
  /** What runs here: shell tools and CLI agents need a Gateway. */
  capabilities: { shellTools: boolean; cliAgents: boolean };
  /** The team workspace and the user's role in it, when the Gateway serves one (multiplayer mode). */
  team?: TeamWorkspace;
  /** The engine in this browser (browser workspaces only): resolves once its worker has started (the database may still be opening). */
  engine?: Promise<BrowserEngine>;
  /** Whether the engine answers (browser workspaces): false while it opens the database; true for other workspaces. */
  engineReady?: Accessor<boolean>;
  /** The rows last seen, shown while a Gateway cannot be reached, or while this browser's engine starts (Gateway, team and browser workspaces). */
  lastSeen?: LastSeen;
  /** The writes made offline in a team workspace, waiting or refused (sync/write-queue.ts). */
  queue?: WriteQueue;
  /**
   * A team workspace opened from what this browser kept, before the Gateway was asked: settles
   * once the token check and the member list answered, or did not (offline). `false` when they
   * say this is no longer the workspace kept (the token refused, the user no longer a member):
   * open it again with `checkFirst`, so the app asks for a token or says why.
   */
  verified?: Promise<boolean>;
  /** Closes it (`leaveCollections`: see FlowCollections.close). */
  close(options?: { leaveCollections?: boolean }): void;
}

/** The origin the worker's `fetch` answers for (any origin works; this one reads clearly in logs). */
export const WORKER_ORIGIN = "http://flow.worker";

/**
 * Opens a workspace and starts its change stream. A team workspace opened before opens at once
 * with what this browser kept, whether or not the network is there, and the Gateway is asked
 * meanwhile (`verified`); `checkFirst` asks before opening, as a first visit does.
 * @example
 * const conn = await connectWorkspace({ id: "browser", kind: "browser", name: "This browser" });
 * conn.cols.runs.toArray;
 */
export async function connectWorkspace(workspace: Workspace, given?: QueryClient, options: { checkFirst?: boolean } = {}): Promise<WorkspaceConnection> {
  if (workspace.kind === "browser") return openBrowser(workspace, given);
  const queryClient = given ?? new QueryClient();
  const url = workspace.url ?? location.origin;
  // A team workspace opened before opens with what this browser kept when nothing answers.
  const kept = workspace.kind === "team" && workspace.workspaceId ? [{ workspaceId: workspace.workspaceId, name: workspace.name, role: workspace.role ?? "read", ...(workspace.userId ? { userId: workspace.userId } : {}), syncPath: `/sync/${workspace.workspaceId}` }] : undefined;
  if (kept && !options.checkFirst) {
    const conn = openTeam(workspace, url, kept, queryClient);
    // A browser that knows it is offline asks nothing (each failed request costs the page time).
    if (typeof navigator !== "undefined" && navigator.onLine === false) return conn;
    return { ...conn, verified: verifyTeam(workspace, url, conn.team!) };
  }
  // The token check and `/health` go out together (offline, each fails on its own); the team
  // list is asked once the token is accepted.
  const accepted = assertTokenAccepted(workspace, url);
  const [, teams] = await Promise.all([
    accepted,
    findTeamWorkspaces(url, workspace.token, accepted).catch((error: unknown) => {
      if (kept) return kept;
      if ((error as { code?: string }).code === "GATEWAY_UNAVAILABLE") return null;
      throw error;
    }),
  ]);
  if (teams) return openTeam(workspace, url, teams, queryClient);
  const lastSeen = createLastSeen();
  const cols = createCollections({ kind: "local", apiBaseUrl: url, ...(workspace.token ? { token: workspace.token } : {}) }, queryClient, { lastSeen });
  const stopFollowing = lastSeen.follow(`flow:${url}:runs`, cols.runs);
  void cols.connect();
  return {
    workspace,
    cols,
    lastSeen,
    capabilities: { shellTools: true, cliAgents: true },
    close(options) {
      stopFollowing();
      cols.close(options);
    },
  };
}

/**
 * Opens this browser's workspace at once: the engine's worker starts and opens the database
 * meanwhile, and until it answers the views show the rows this browser saw last (none on a
 * first visit: no runs yet), then everything is fetched from the engine. The views never wait
 * for the worker to load before they render (docs/app-browser.md "Opening fast"). Its reads
 * never wait for the network (`networkMode: "always"`): TanStack Query holds a query back while
 * the browser says it is offline, and a run page opened after the network dropped then said
 * "Loading tasks…" for good, with no approval to give.
 * @example
 * const conn = openBrowser({ id: "browser", kind: "browser", name: "This browser" });
 * await conn.engine;
 */
export function openBrowser(workspace: Workspace, queryClient = new QueryClient({ defaultOptions: { queries: { networkMode: "always" } } })): WorkspaceConnection {
  const engine = import("../../browser/client.js").then(({ connectBrowserEngine }) => connectBrowserEngine());
  const [engineReady, setEngineReady] = createSignal(false);
  const lastSeen = createLastSeen({ warming: () => !engineReady(), emptyWhenUnseen: [`flow:${WORKER_ORIGIN}:runs`] });
  const data = createDataClient({ mode: { kind: "local", apiBaseUrl: WORKER_ORIGIN }, fetch: async (input, init) => (await engine).fetch(input, init) });
  const cols = createCollections(data, queryClient, { lastSeen });
  const stopFollowing = lastSeen.follow(`flow:${WORKER_ORIGIN}:runs`, cols.runs);
  let closed = false;
  void engine
    .then((e) => e.ready())
    .then(() => {
      if (closed) return;
      setEngineReady(true);
      // What was shown from the last visit is replaced by the engine's rows.
      if (lastSeen.fromStore()) void cols.invalidate();
    })
    .catch(() => undefined);
  void cols.connect();
  return {
    workspace,
    cols,
    engine,
    engineReady,
    lastSeen,
    capabilities: { shellTools: false, cliAgents: false },
    close(options) {
      closed = true;
      stopFollowing();
      cols.close(options);
      data.close();
      void engine.then((e) => e.close()).catch(() => undefined);
    },
  };
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
  const res = await fetch(`${url}${routeUrl(API_ROUTES.listRuns, {}, { limit: 1 })}`, { headers }).catch(() => undefined);
  if (res?.status === 401) {
    throw new FlowError("UNAUTHORIZED", workspace.token ? `${workspace.name} refused the saved token; paste a valid one.` : `${workspace.name} needs a token: paste one its owner gave you.`, { workspace: workspace.id });
  }
}

/**
 * Asks the Gateway about a team workspace opened from what this browser kept: true while it
 * holds (or nothing answered), with a changed name or role kept for the next visit and the
 * role used for what may be queued; false when the token is refused or the user is no longer
 * a member of it (the caller opens it again with `checkFirst`).
 * @example
 * if (!(await verifyTeam(ws, url, conn.team!))) reopen();
 */
export async function verifyTeam(workspace: Workspace, url: string, team: TeamWorkspace): Promise<boolean> {
  try {
    const accepted = assertTokenAccepted(workspace, url);
    const [, teams] = await Promise.all([accepted, findTeamWorkspaces(url, workspace.token, accepted)]);
    // null: the list did not answer (or the Gateway no longer says it serves a team): keep what was kept.
    if (teams === null) return true;
    const now = teams.find((t) => t.workspaceId === team.workspaceId);
    if (!now || now.userId !== team.userId) return false;
    if (now.name !== team.name || now.role !== team.role) {
      Object.assign(team, { name: now.name, role: now.role });
      saveWorkspace({ ...workspace, name: now.name, role: now.role });
    }
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== "UNAUTHORIZED";
  }
}

/**
 * Opens the team workspace a Gateway serves in multiplayer mode (runs and approvals from its
 * shapes, docs/multiplayer.md): the one the workspace names, else the first the user belongs
 * to. A user who belongs to none gets WORKSPACE_NOT_MEMBER (the app says so and shows nothing).
 * @example
 * const conn = openTeam(ws, "http://127.0.0.1:7331", [{ workspaceId: "acme", name: "Acme", role: "approve", syncPath: "/sync/acme" }]);
 */
export function openTeam(workspace: Workspace, url: string, teams: TeamWorkspace[], queryClient = new QueryClient()): WorkspaceConnection {
  const team = teams.find((t) => t.workspaceId === workspace.workspaceId) ?? teams[0];
  if (!team) {
    throw new FlowError("WORKSPACE_NOT_MEMBER", `${workspace.name}${workspace.url ? ` (${workspace.url})` : ""} serves a team workspace you do not belong to. Ask one of its admins to add you in the Members view (ext.workspace.addMember), or sign in with another token.`, { workspace: workspace.id });
  }
  const opened: Workspace = { ...workspace, kind: "team", name: team.name, workspaceId: team.workspaceId, role: team.role, ...(team.userId ? { userId: team.userId } : {}) };
  // The switcher lists it as the team from now on, also before it opens (workspaces.ts); the
  // role and user id are kept so that a team opened offline knows what it may queue (the role
  // its kept members shape last brought for the user, else the one answered at sign-in).
  if (workspace.kind !== "team" || workspace.name !== team.name || workspace.role !== team.role || workspace.userId !== team.userId) saveWorkspace(opened);
  const token = workspace.token ? { token: workspace.token } : {};
  // Shapes, the other collections' last loads and the writes made offline stay in this browser.
  const lastSeen = createLastSeen();
  const queue = new WriteQueue(createWriteStore(), `${url}#${team.workspaceId}`);
  const cols = createTeamCollections({ kind: "multiplayer", apiBaseUrl: url, electricBaseUrl: `${url}/sync`, workspaceId: team.workspaceId, ...token }, queryClient, { lastSeen }, { shapes: lastSeen.shapes, queue, role: () => team.role, ...(team.userId ? { userId: team.userId } : {}) });
  void cols.connect();
  return {
    workspace: opened,
    team,
    cols,
    lastSeen,
    queue,
    capabilities: { shellTools: true, cliAgents: true },
    close: (options) => cols.close(options),
  };
}
