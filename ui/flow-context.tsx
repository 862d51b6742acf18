/**
 * @module ui/flow-context
 * The app's context: the open workspace (its live collections and capabilities), the list of
 * workspaces and the switch between them, and the connection status as a signal. Every view
 * reads data through `useFlow().cols` with `useLiveQuery` (@tanstack/solid-db).
 */
import { type Accessor, createContext, createResource, createSignal, onCleanup, type ParentProps, type Resource, useContext } from "solid-js";
import type { ConnectionStatus } from "../core/data/index.js";
import { readBoot, type FlowBoot } from "./boot.js";
import { connectWorkspace, type WorkspaceConnection } from "./workspace/connect.js";
import { listWorkspaces, pickWorkspace, rememberCurrent, saveWorkspace, type Workspace } from "./workspace/workspaces.js";

/** What every view can read. */
export interface FlowContextValue {
  boot: FlowBoot;
  /** The open workspace (undefined while it opens, and when it could not: then `.error` says why; reading never throws). */
  connection: Resource<WorkspaceConnection>;
  workspace: Accessor<Workspace>;
  workspaces: Accessor<Workspace[]>;
  /** Opens another workspace (closes the current one). */
  switchWorkspace(id: string): void;
  /** Re-reads the offered workspaces (after one was added or removed). */
  refreshWorkspaces(): void;
  /** Saves a token for the open workspace (kept in this browser only) and opens it again with it. */
  setToken(token: string): void;
  /** The change stream's status of the open workspace. */
  status: Accessor<WorkspaceStatus>;
}

/**
 * The open workspace's status: its change stream's, or `denied` when it answered but refused
 * this sign-in (no token, a refused token, not a member).
 */
export type WorkspaceStatus = ConnectionStatus | "denied";

/** Codes with which a reachable workspace refuses to open. */
const REFUSALS = new Set(["UNAUTHORIZED", "FORBIDDEN", "WORKSPACE_NOT_MEMBER"]);

const FlowContext = createContext<FlowContextValue>();

/**
 * Opens the workspace the URL (`?ws=`) or the last visit names, and provides it.
 * @example
 * render(() => <FlowProvider><App /></FlowProvider>, root);
 */
export function FlowProvider(props: ParentProps) {
  const boot = readBoot();
  const [workspaces, setWorkspaces] = createSignal(listWorkspaces(boot));
  const initial = pickWorkspace(workspaces(), new URLSearchParams(location.search).get("ws"));
  const [workspace, setWorkspace] = createSignal<Workspace>(initial);
  const [streamStatus, setStatus] = createSignal<WorkspaceStatus>("connecting");
  const [network, setNetwork] = createSignal(navigator.onLine);
  // A workspace elsewhere is offline as soon as the browser says the network is gone (its
  // change stream would notice only at its next timeout); this browser's needs no network.
  const status = (): WorkspaceStatus => (!network() && workspace().kind !== "browser" && streamStatus() !== "closed" ? "offline" : streamStatus());
  let stopStatus: (() => void) | undefined;
  let current: WorkspaceConnection | undefined;

  const [opened, { refetch }] = createResource(workspace, async (ws, { refetching }) => {
    stopStatus?.();
    // The views of the previous workspace stay mounted until this one opens; then it is closed,
    // its collections left to the garbage collector (the live queries of those views still
    // hold them for a while, and cleaning them up under a live query fails it).
    const previous = current;
    current = undefined;
    setStatus("connecting");
    rememberCurrent(ws.id);
    const conn = await connectWorkspace(ws, undefined, { checkFirst: refetching === true }).catch((error: unknown) => {
      // Not "connecting" forever: the gate says why (a token prompt, an error). A workspace that
      // answered but refused this sign-in is reachable, so it is not "offline".
      setStatus(REFUSALS.has((error as { code?: string } | undefined)?.code ?? "") ? "denied" : "offline");
      setTimeout(() => previous?.close({ leaveCollections: true }));
      throw error;
    });
    current = conn;
    setStatus(conn.cols.status);
    stopStatus = conn.cols.onStatus(setStatus);
    setTimeout(() => previous?.close({ leaveCollections: true }));
    // Opened from what this browser kept: the Gateway's answers may still say otherwise (a
    // refused token, no longer a member), and then it opens again, asking first.
    void conn.verified?.then((holds) => {
      if (!holds && current === conn) void refetch(true);
    });
    return conn;
  });
  // The network back: reconnect now rather than after the backoff (the collections catch up
  // once the stream is online again, core/data/live-sync.ts).
  const onNetwork = () => {
    setNetwork(navigator.onLine);
    if (navigator.onLine) current?.cols.data.stream.reconnectNow();
  };
  addEventListener("online", onNetwork);
  addEventListener("offline", onNetwork);
  // Reads like the resource, but answers undefined instead of throwing once opening failed
  // (a Gateway asking for a token, an engine that did not start): `.error` says why.
  const connection = Object.defineProperties(() => (opened.error ? undefined : opened()), {
    state: { get: () => opened.state },
    loading: { get: () => opened.loading },
    error: { get: () => opened.error as unknown },
    latest: { get: () => (opened.error ? undefined : opened.latest) },
  }) as unknown as Resource<WorkspaceConnection>;
  onCleanup(() => {
    removeEventListener("online", onNetwork);
    removeEventListener("offline", onNetwork);
    stopStatus?.();
    current?.close();
  });

  const value: FlowContextValue = {
    boot,
    connection,
    workspace,
    workspaces,
    switchWorkspace(id) {
      const next = workspaces().find((w) => w.id === id);
      if (next && next.id !== workspace().id) setWorkspace(next);
    },
    refreshWorkspaces: () => setWorkspaces(listWorkspaces(boot)),
    setToken(token) {
      const next = { ...workspace(), token };
      saveWorkspace(next);
      setWorkspaces(listWorkspaces(boot));
      setWorkspace(next);
    },
    status,
  };
  return <FlowContext.Provider value={value}>{props.children}</FlowContext.Provider>;
}

/**
 * The app's context (inside `FlowProvider`).
 * @example
 * const { connection } = useFlow();
 * const runs = useLiveQuery((q) => q.from({ r: connection()!.cols.runs }));
 */
export function useFlow(): FlowContextValue {
  const ctx = useContext(FlowContext);
  if (!ctx) throw new Error("useFlow() needs <FlowProvider> above it.");
  return ctx;
}

/**
 * The open workspace's connection, for views (the shell renders views only once it is open).
 * @example
 * const { cols } = useConnection();
 */
export function useConnection(): WorkspaceConnection {
  const conn = useFlow().connection();
  if (!conn) throw new Error("useConnection() is for views rendered once the workspace is open.");
  return conn;
}
