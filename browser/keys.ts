/**
 * @module browser/keys
 * API keys and endpoint settings kept in this browser (IndexedDB database `flow-keys`), for
 * SDK agents run by the engine in this browser. The engine worker gives them to workflows as
 * its environment variables (`process.env.<NAME>` inside the worker), so an agent reads
 * `OPENAI_API_KEY`, `FLOW_LOCAL_BASE_URL` and the like as it does in Node. They never enter the
 * database: not a run's config, not an export, not a Gateway. Saving one tells every tab's
 * worker (BroadcastChannel `flow:keys`). See docs/app-browser.md "Keys".
 */

const DB = "flow-keys";
const STORE = "keys";
const CHANNEL = "flow:keys";

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function inStore<T>(mode: IDBTransactionMode, fn: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * Saves (or, with `null`, removes) a key of this browser and tells the engine workers.
 * @example
 * await saveBrowserKey("OPENAI_API_KEY", "sk-...");
 */
export async function saveBrowserKey(name: string, value: string | null): Promise<void> {
  await inStore<unknown>("readwrite", (store) => (value === null ? store.delete(name) : store.put(value, name)) as IDBRequest<unknown>);
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ changed: name });
  channel.close();
}

/**
 * Every key of this browser, by name.
 * @example
 * Object.keys(await loadBrowserKeys()); // ["OPENAI_API_KEY"]
 */
export async function loadBrowserKeys(): Promise<Record<string, string>> {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const out: Record<string, string> = {};
      const tx = db.transaction(STORE, "readonly");
      const cursor = tx.objectStore(STORE).openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) return;
        out[String(c.key)] = String(c.value);
        c.continue();
      };
      tx.oncomplete = () => resolve(out);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * In a worker: keeps `process.env` equal to the keys of this browser (created when the worker
 * has no `process`), now and whenever a tab saves one. Resolves once the keys are loaded.
 * @example
 * await exposeBrowserKeysAsEnv();
 * process.env.OPENAI_API_KEY; // what the app saved
 */
export async function exposeBrowserKeysAsEnv(): Promise<void> {
  const scope = globalThis as { process?: { env?: Record<string, string | undefined> } };
  let shown: string[] = [];
  const refresh = async () => {
    const keys = await loadBrowserKeys().catch(() => ({}) as Record<string, string>);
    if (Object.keys(keys).length === 0 && !scope.process) return;
    scope.process ??= { env: {} };
    const env = (scope.process.env ??= {});
    for (const name of shown) if (!(name in keys)) delete env[name];
    Object.assign(env, keys);
    shown = Object.keys(keys);
  };
  new BroadcastChannel(CHANNEL).onmessage = () => void refresh();
  await refresh();
}
