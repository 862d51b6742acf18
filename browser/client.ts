/**
 * @module browser/client
 * The page side of the engine in this browser: starts the engine's Web Worker
 * (browser/worker/engine-worker.ts) and gives the UI a `fetch` that answers the domain API from
 * it, streaming (the change stream, run events), exactly as a Gateway's HTTP would. Tabs of one
 * database share one engine; see docs/app-browser.md.
 */
import * as Comlink from "comlink";
import { rpcPath } from "../core/api/internal.js";
import type { SqlRow, SqlValue } from "../core/store/index.js";
import { saveBrowserKey } from "./keys.js";
import type { BrowserStorage } from "./store/index.js";
import { responseOf, toWireRequest } from "./wire.js";
import type { EngineRole, EngineWorkerApi } from "./worker/index.js";

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
  /** Resolves once the engine answers (the database is open in the leader tab). */
  ready(): Promise<void>;
  /**
   * Runs SQL (`?` placeholders) on this browser's database, from the tab that holds it (role
   * `leader`): for the devtools console and benchmarks. The page can reach the same storage
   * anyway, so this opens nothing new.
   */
  query<T extends SqlRow = SqlRow>(sql: string, params?: SqlValue[]): Promise<T[]>;
  /** Saves (or, with null, removes) a key of this browser: the engine's workflows see it as `process.env.<name>` (browser/keys.ts). */
  saveKey(name: string, value: string | null): Promise<void>;
  /** How long this tab's engine took to start: opening the database, binding the workflows (leader tabs, once ready). */
  startup(): Promise<{ openMs: number; bindMs: number } | undefined>;
  /**
   * How often this tab's engine, opening the database on OPFS, found files still held by a tab
   * that was closing and waited for them (leader tabs; docs/app-browser.md "Tabs").
   */
  handleWaits(): Promise<number>;
  /** Stops the worker. */
  close(): void;
}

/** Options of `connectBrowserEngine`. */
export interface BrowserEngineOptions {
  /** The database name (default `flow`): tabs with one name share one database. */
  dbName?: string;
  /**
   * Where a new database is kept (default: `localStorage["flow:storage"]` when set, else
   * `auto`: OPFS where the browser offers it, else IndexedDB).
   */
  storage?: BrowserStorage | "auto";
}

/** Where the app remembers a chosen storage (`opfs`, `idb`, `memory`, `auto`). */
export const STORAGE_SETTING = "flow:storage";

function storageSetting(): BrowserStorage | "auto" {
  const saved = globalThis.localStorage?.getItem(STORAGE_SETTING);
  return saved === "opfs" || saved === "idb" || saved === "memory" ? saved : "auto";
}

/** A body that errors when `signal` aborts (as fetch's does) and cancels the worker's stream. */
function abortable(body: ReadableStream<Uint8Array>, signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> {
  if (!signal) return body;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener(
        "abort",
        () => {
          controller.error(signal.reason ?? new DOMException("The request was aborted.", "AbortError"));
          void reader.cancel().catch(() => undefined);
        },
        { once: true },
      );
    },
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Starts (or joins) the engine of this browser.
 * @example
 * const engine = await connectBrowserEngine();
 * const data = createDataClient({ mode: { kind: "local", apiBaseUrl: "http://flow.worker" }, fetch: engine.fetch });
 */
export async function connectBrowserEngine(opts: BrowserEngineOptions = {}): Promise<BrowserEngine> {
  const dbName = opts.dbName ?? "flow";
  const worker = new Worker(new URL("./worker/engine-worker.ts", import.meta.url), { type: "module", name: `flow-engine:${dbName}` });
  const remote = Comlink.wrap<EngineWorkerApi>(worker);
  let role: EngineRole = "starting";
  let storage: BrowserEngine["storage"] = "unknown";
  const listeners = new Set<(role: EngineRole) => void>();
  const noteStorage = async () => {
    const s = await remote.storage();
    storage = s === "opfs" || s === "idb" || s === "memory" ? s : "unknown";
  };
  await remote.onRoleChange(
    Comlink.proxy(async (next: EngineRole) => {
      role = next;
      await noteStorage().catch(() => undefined);
      for (const listener of listeners) listener(next);
    }),
  );
  role = await remote.init({ dbName, storage: opts.storage ?? storageSetting() });
  await noteStorage();

  const engineFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    if (req.signal.aborted) throw req.signal.reason ?? new DOMException("The request was aborted.", "AbortError");
    const { head, body } = await remote.fetch(await toWireRequest(req));
    return responseOf(head, body ? abortable(body, init?.signal ?? req.signal) : null);
  };

  const engine: BrowserEngine = {
    fetch: engineFetch,
    get role() {
      return role;
    },
    get storage() {
      return storage;
    },
    onRoleChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async ready() {
      const res = await engineFetch(`http://flow.worker${rpcPath("listWorkflows")}`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
      await res.body?.cancel();
      await noteStorage();
    },
    query: async <T extends SqlRow = SqlRow>(sql: string, params?: SqlValue[]) => (await remote.query(sql, params)) as T[],
    saveKey: saveBrowserKey,
    startup: () => remote.startup(),
    handleWaits: () => remote.handleWaits(),
    close() {
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
  // For the devtools console and browser tests: `await __FLOW_ENGINE__.fetch("/v1/api/runs")`.
  (globalThis as { __FLOW_ENGINE__?: BrowserEngine }).__FLOW_ENGINE__ = engine;
  return engine;
}
