/**
 * @module core/util/lazy-package
 * A package that some paths need synchronously, loaded when one first does instead of when Flow
 * is imported (issue 22, docs/package.md "What loads when"). In Node (>= 20.19, which
 * `require`s ES modules and shares them with `import`) the package is required at first use;
 * elsewhere (a browser bundle, where the package is a chunk of the bundle) it is fetched as soon
 * as the module that declares it loads (in a page: once the page is idle after its first render,
 * see `afterFirstRender`), so it is there by the time anything runs. Code that is already async
 * uses `await import()` instead.
 *
 * Node requires the file `import` would load (resolved with `import.meta.resolve`), so a package
 * that ships both ES and CommonJS builds is loaded once, as the ES module an `import` shares.
 */
import { FlowError } from "../errors.js";

type NodeProcess = { getBuiltinModule?: (id: string) => unknown };
type NodeModule = { createRequire(url: string): (id: string) => unknown };
type NodeUrl = { fileURLToPath(url: string): string };

/** Longest a page waits for an idle moment before it loads a declared package anyway. */
const PAGE_IDLE_WAIT_MS = 1000;

/**
 * Runs `start` at once in a worker; in a page, once it is idle. The app's page declares Drizzle
 * and yaml through core/api (the engine in its worker is what uses them): fetched and evaluated
 * as the page's modules load, they queued in front of the first view's chunk and held its main
 * thread (docs/performance.md "The app in the browser").
 */
function afterFirstRender(start: () => void): void {
  const page = globalThis as { document?: unknown; requestIdleCallback?: (fn: () => void, opts: { timeout: number }) => void };
  if (page.document === undefined) return start();
  if (page.requestIdleCallback) page.requestIdleCallback(start, { timeout: PAGE_IDLE_WAIT_MS });
  else setTimeout(start, 0);
}

/**
 * A getter of package `id`: required (Node) from the module whose `import.meta` is `meta`, or loaded by `load` (elsewhere).
 * @example
 * const yaml = lazyPackage(import.meta, "yaml", () => import("yaml"));
 * yaml().parse("a: 1"); // loads yaml here, the first time
 */
export function lazyPackage<T>(meta: ImportMeta, id: string, load: () => Promise<T>): () => T {
  let lib: T | undefined;
  const builtin = (globalThis as { process?: NodeProcess }).process?.getBuiltinModule;
  const nodeRequire = builtin && (builtin("module") as NodeModule).createRequire(meta.url);
  // A load that fails (a chunk fetched offline before the app's files were kept) is said at use, not as an uncaught error.
  let failed: unknown;
  if (!nodeRequire) afterFirstRender(() => void load().then((m) => (lib = m), (error: unknown) => (failed = error)));
  const target = () => {
    const url = typeof meta.resolve === "function" ? meta.resolve(id) : undefined;
    return url?.startsWith("file:") ? (builtin!("url") as NodeUrl).fileURLToPath(url) : id;
  };
  return () => {
    lib ??= nodeRequire?.(target()) as T | undefined;
    if (!lib && failed !== undefined) throw new FlowError("PACKAGE_MISSING", `The ${id} package could not be loaded (${String((failed as Error)?.message ?? failed)}); reload once the network is back.`, { package: id });
    if (!lib) throw new FlowError("PACKAGE_MISSING", `The ${id} package is still loading: call this after Flow's modules have loaded.`, { package: id });
    return lib;
  };
}
