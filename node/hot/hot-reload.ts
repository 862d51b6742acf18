/**
 * @module node/hot/hot-reload
 * The Node `HotReloadPort` (core/engine/workspace-port.ts). Runs started with `hot` watch their
 * workflow file; when it (or a local file it imports) is edited, the new build arrives through
 * `onBuild` and the engine renders with it from its next render. Every run of one file (and
 * output directory) in a process shares one watcher (./reload-hub.ts). See docs/hot-reload.md.
 */
import { resolve } from "node:path";
import type { FlowWorkflow, HotReloadOptions, HotReloadPort } from "../../core/engine/index.js";
import { bindingOf } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import { type NodeHotBuild, ReloadHub } from "./reload-hub.js";

/**
 * SPEC.md defaults of `HotReloadOptions` (`outDir` is relative to `rootDir`).
 * @example
 * const keep = options.maxGenerations ?? HOT_RELOAD_DEFAULTS.maxGenerations; // 3
 */
export const HOT_RELOAD_DEFAULTS = { outDir: ".flow/hmr", maxGenerations: 3, debounceMs: 100 } as const;

/** What `watch` takes: SPEC.md `HotReloadOptions`, plus the running workflow when the caller has it. */
export interface NodeHotWatchOptions extends HotReloadOptions {
  /**
   * The workflow the run is executing. New builds reuse its store and schema objects. When
   * absent, it is the file's default export, taken from the module cache (the module the host
   * loaded).
   */
  workflow?: FlowWorkflow;
}

/** `watch`'s stop function; `ready` settles once the files are watched (edits before it may be missed). */
export type StopWatching = (() => void) & { ready: Promise<void> };

/** The Node hot-reload port: `watch` with Node's options and builds. */
export interface NodeHotReloadPort extends HotReloadPort {
  watch(workflowPath: string, options: NodeHotWatchOptions, onBuild: (build: NodeHotBuild) => void, onError: (error: unknown) => void): StopWatching;
}

/** Watched files of this process, by workflow file and output directory. */
const hubs = new Map<string, ReloadHub>();

/**
 * The hot-reload port of a Node process (createNodeEnv includes it).
 * @example
 * const stop = createNodeHotReload().watch("workflows/review.tsx", { maxGenerations: 3, debounceMs: 100 },
 *   ({ build, generation }) => console.log(`generation ${generation} loaded`),
 *   (error) => console.error(error), // a syntax error: the previous build keeps running
 * );
 * await stop.ready;
 * // ... later
 * stop();
 */
export function createNodeHotReload(): NodeHotReloadPort {
  return {
    watch(workflowPath, options, onBuild, onError) {
      const rootDir = resolve(options.rootDir ?? process.cwd());
      const file = resolve(rootDir, workflowPath);
      const outDir = resolve(rootDir, options.outDir ?? HOT_RELOAD_DEFAULTS.outDir);
      const maxGenerations = options.maxGenerations ?? HOT_RELOAD_DEFAULTS.maxGenerations;
      const debounceMs = options.debounceMs ?? HOT_RELOAD_DEFAULTS.debounceMs;
      if (!Number.isInteger(maxGenerations) || maxGenerations < 1) {
        throw new FlowError("INVALID_ARGUMENT", `hot.maxGenerations must be a whole number of at least 1, got ${String(maxGenerations)}.`, { maxGenerations });
      }
      if (!Number.isFinite(debounceMs) || debounceMs < 0) throw new FlowError("INVALID_ARGUMENT", `hot.debounceMs must be a number of milliseconds >= 0, got ${String(debounceMs)}.`, { debounceMs });

      const key = `${file}\0${outDir}`;
      let hub = hubs.get(key);
      if (!hub || hub.closed) {
        hub = new ReloadHub({ file, rootDir, outDir, maxGenerations, debounceMs, ...(options.workflow ? { baseline: options.workflow } : {}) });
        hubs.set(key, hub);
      }
      const owner = hub;
      const unsubscribe = owner.subscribe({ onBuild: (b) => onBuild(b), onError });
      const stop = () => {
        unsubscribe();
        if (owner.closed && hubs.get(key) === owner) hubs.delete(key);
      };
      const ready = owner.ready.then(() => {
        // Another run of this file in this process set up the watcher for a different store.
        if (options.workflow && owner.baseline && bindingOf(options.workflow) !== bindingOf(owner.baseline)) {
          stop();
          onError(new FlowError("INVALID_ARGUMENT", `Hot reload: ${file} is already watched in this process for a workflow on another store; give this run its own hot.outDir.`, { workflowPath: file, outDir }));
        }
      });
      return Object.assign(stop, { ready });
    },
  };
}
