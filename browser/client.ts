/**
 * @module browser/client
 * The page side of the engine in this browser: starts the engine's Web Worker and gives the
 * UI a `fetch` that answers the domain API from it (docs/app.md "This browser").
 * (Skeleton: the worker lands with issue #13's browser engine.)
 */
import { FlowError } from "../core/errors.js";

/** What the page holds of the engine in this browser. */
export interface BrowserEngine {
  /** Answers domain API requests (`/v1/api/*`, `/v1/rpc/*`, the change stream) from the worker. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Whether this tab's worker runs the engine (`leader`) or forwards to the tab that does. */
  readonly role: "leader" | "follower" | "starting";
  /** Where the database lives. */
  readonly storage: "opfs" | "idb" | "memory" | "unknown";
  /** Called when the role changes (a leader tab closed and this one took over). */
  onRoleChange(listener: (role: BrowserEngine["role"]) => void): () => void;
  /** Stops the worker. */
  close(): void;
}

/** Options of `connectBrowserEngine`. */
export interface BrowserEngineOptions {
  /** The database name (default `flow`): tabs with one name share one database. */
  dbName?: string;
}

/**
 * Starts (or joins) the engine of this browser.
 * @example
 * const engine = await connectBrowserEngine();
 * const data = createDataClient({ mode: { kind: "local", apiBaseUrl: "http://flow.worker" }, fetch: engine.fetch });
 */
export async function connectBrowserEngine(_opts: BrowserEngineOptions = {}): Promise<BrowserEngine> {
  throw new FlowError("NOT_AVAILABLE", "The engine in this browser is not built yet.");
}
