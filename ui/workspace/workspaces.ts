/**
 * @module ui/workspace/workspaces
 * The workspaces the switcher offers: this browser (the engine in a Web Worker, offline), a
 * Gateway (runs with shell tools in Node), a team workspace (multiplayer, issue #14). The list
 * and the current choice are kept in localStorage; the Gateway that served the page is always
 * offered. See docs/app.md "Workspaces".
 */
import type { FlowBoot } from "../boot.js";

/** Where a workspace's data lives. */
export type WorkspaceKind = "browser" | "gateway" | "team";

/** A workspace the app can open. */
export interface Workspace {
  /** Stable id (`browser`, `gateway:<url>`, `team:<url>/<id>`). */
  id: string;
  kind: WorkspaceKind;
  name: string;
  /** A Gateway's origin (gateway and team workspaces). */
  url?: string;
  /** Bearer token for the Gateway (kept in this browser only). */
  token?: string;
  /** The team workspace id (team workspaces). */
  workspaceId?: string;
  /** The user's role in the team workspace, as last answered (a team opened offline keeps it). */
  role?: string;
  /** The user's id in the team workspace (their row of its `members` shape, read offline too). */
  userId?: string;
}

const LIST_KEY = "flow:workspaces";
const CURRENT_KEY = "flow:workspace";

/** The workspace of the engine in this browser. */
export const BROWSER_WORKSPACE: Workspace = { id: "browser", kind: "browser", name: "This browser" };

/**
 * The workspaces to offer: the served-from Gateway, this browser, then saved ones.
 * @example
 * listWorkspaces(readBoot()).map((w) => w.name); // ["This Gateway", "This browser"]
 */
export function listWorkspaces(boot: FlowBoot): Workspace[] {
  const out: Workspace[] = [];
  if (boot.gateway) {
    const id = `gateway:${boot.gateway.url}`;
    // A token given for the Gateway that served the page (token-prompt.tsx) is saved under its
    // id, and so is the team it turned out to serve (connect.ts), named as the team.
    const saved = readSaved().find((w) => w.id === id);
    const team = saved?.kind === "team" && saved.workspaceId ? { kind: "team" as const, name: saved.name, workspaceId: saved.workspaceId, ...(saved.role ? { role: saved.role } : {}), ...(saved.userId ? { userId: saved.userId } : {}) } : { kind: "gateway" as const, name: boot.gateway.name ?? "This Gateway" };
    out.push({ id, ...team, url: boot.gateway.url, ...(saved?.token ? { token: saved.token } : {}) });
  }
  if (boot.offline !== false) out.push(BROWSER_WORKSPACE);
  for (const saved of readSaved()) if (!out.some((w) => w.id === saved.id)) out.push(saved);
  return out;
}

/**
 * Saves a workspace (added in the switcher), replacing one with the same id.
 * @example
 * saveWorkspace({ id: "gateway:http://build-box:7331", kind: "gateway", name: "Build box", url: "http://build-box:7331" });
 */
export function saveWorkspace(ws: Workspace): void {
  const list = readSaved().filter((w) => w.id !== ws.id);
  localStorage.setItem(LIST_KEY, JSON.stringify([...list, ws]));
}

/**
 * Forgets a saved workspace.
 * @example
 * removeWorkspace("gateway:http://build-box:7331");
 */
export function removeWorkspace(id: string): void {
  localStorage.setItem(LIST_KEY, JSON.stringify(readSaved().filter((w) => w.id !== id)));
}

/**
 * The workspace to open: `preferred` (a `?ws=` link) if offered, else the last one used, else the first.
 * @example
 * const ws = pickWorkspace(listWorkspaces(boot), new URLSearchParams(location.search).get("ws"));
 */
export function pickWorkspace(offered: Workspace[], preferred?: string | null): Workspace {
  const byId = (id: string | null | undefined) => (id ? offered.find((w) => w.id === id) : undefined);
  const chosen = byId(preferred) ?? byId(safeGet(CURRENT_KEY)) ?? offered[0] ?? BROWSER_WORKSPACE;
  return chosen;
}

/**
 * Remembers the workspace in use.
 * @example
 * rememberCurrent(ws.id);
 */
export function rememberCurrent(id: string): void {
  try {
    localStorage.setItem(CURRENT_KEY, id);
  } catch {
    // Storage may be unavailable (private mode): the choice just is not remembered.
  }
}

function readSaved(): Workspace[] {
  try {
    const parsed = JSON.parse(safeGet(LIST_KEY) ?? "[]") as unknown;
    return Array.isArray(parsed) ? (parsed.filter((w) => w && typeof w.id === "string" && typeof w.kind === "string") as Workspace[]) : [];
  } catch {
    return [];
  }
}

function safeGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
