/**
 * @module core/util/lazy-package
 * A package that some paths need synchronously, loaded when one first does instead of when Flow
 * is imported (issue 22, docs/package.md "What loads when"). In Node (>= 20.19, which
 * `require`s ES modules and shares them with `import`) the package is required at first use;
 * elsewhere (a browser bundle, where the package is a chunk of the bundle) it is fetched as soon
 * as the module that declares it loads, so it is there by the time anything runs. Code that is
 * already async uses `await import()` instead.
 *
 * Node requires the file `import` would load (resolved with `import.meta.resolve`), so a package
 * that ships both ES and CommonJS builds is loaded once, as the ES module an `import` shares.
 */
import { FlowError } from "../errors.js";

type NodeProcess = { getBuiltinModule?: (id: string) => unknown };
type NodeModule = { createRequire(url: string): (id: string) => unknown };
type NodeUrl = { fileURLToPath(url: string): string };

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
  if (!nodeRequire) void load().then((m) => (lib = m), (error: unknown) => (failed = error));
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
