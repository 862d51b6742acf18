/**
 * @module browser/worker/engine
 * The engine of this browser, as the leader tab's worker runs it: the browser database, the
 * app's workflows bound to it, a `LocalGatewayHost` and the domain API handler the Gateway
 * serves too (so the UI is the same code in every mode). On start it picks up the runs the
 * previous leader left (a closed tab, a reload), and every `wakeEveryMs` it resumes parked runs
 * that can continue (a due timer). See docs/app-browser.md.
 */
import type { WorkflowSet } from "../../core/api/index.js";
import {
  createDomainHandler,
  type DomainHandler,
  LocalGatewayHost,
  pickUpRuns,
} from "../../core/api/index.js";
import { bindBrowserWorkflows, createBrowserEnv } from "../create-browser-flow.js";
import { type BrowserPgliteStoreOptions, type BrowserPgliteStore, openBrowserPgliteStore } from "../store/index.js";

/** Options of `startBrowserEngine`. */
export interface BrowserEngineStartOptions extends BrowserPgliteStoreOptions {
  workflows: readonly WorkflowSet[];
  /** How often parked runs are checked for a due timer (default 1000 ms). */
  wakeEveryMs?: number;
}

/** A running engine. */
export interface RunningBrowserEngine {
  store: BrowserPgliteStore;
  host: LocalGatewayHost;
  handler: DomainHandler;
  /** How long starting took: opening the database, then binding the workflows (ms). */
  startup: { openMs: number; bindMs: number };
  /** Runs picked up when it started (what the previous leader left). */
  pickedUp: Promise<string[]>;
  /** Pauses the runs it executes (they stay resumable) and closes the database. */
  close(): Promise<void>;
}

/** A label for warnings of the pick-up. */
const LABEL = "This browser";

/**
 * Opens the database and starts serving the domain API over it.
 * @example
 * const engine = await startBrowserEngine({ name: "flow", workflows: appWorkflows });
 * const res = await engine.handler.fetch(new Request("http://flow.worker/v1/api/runs"));
 */
export async function startBrowserEngine(opts: BrowserEngineStartOptions): Promise<RunningBrowserEngine> {
  const started = performance.now();
  const store = await openBrowserPgliteStore(opts);
  const opened = performance.now();
  let host: LocalGatewayHost;
  try {
    const env = createBrowserEnv(store.name);
    const { workflows } = await bindBrowserWorkflows(opts.workflows, store, env);
    host = new LocalGatewayHost({ workflows });
  } catch (error) {
    await store.close();
    throw error;
  }
  const startup = { openMs: Math.round(opened - started), bindMs: Math.round(performance.now() - opened) };
  const handler = createDomainHandler({ host });
  const pickedUp = pickUpRuns(host, LABEL);
  let waking = true;
  void pickedUp.finally(() => (waking = false));
  const timer = setInterval(() => {
    if (waking) return;
    waking = true;
    void pickUpRuns(host, LABEL).finally(() => (waking = false));
  }, opts.wakeEveryMs ?? 1000);
  return {
    store,
    host,
    handler,
    startup,
    pickedUp,
    async close() {
      clearInterval(timer);
      await host.close();
      await store.close();
    },
  };
}
