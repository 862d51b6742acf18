/**
 * @module core/engine/hot-reload
 * Hot reload of a run's workflow file (SPEC.md `hot`, `HotReloadOptions`): the host's
 * HotReloadPort watches the file and hands the session each new build, which it renders from
 * then on. See docs/hot-reload.md.
 */
import type { FlowNode } from "../jsx/index.js";
import type { FlowWorkflow, RunOptions } from "./types.js";
import type { HotBuild } from "./workspace-port.js";
import type { RuntimeEnv } from "./world.js";

export interface HotOptions {
  cancelUnmounted: boolean;
  outDir?: string;
  rootDir?: string;
  maxGenerations: number;
  debounceMs: number;
}

/** `RunOptions.hot` with its defaults (3 generations, 100 ms debounce), or undefined when off. */
export function hotOptionsOf(hot: RunOptions["hot"]): HotOptions | undefined {
  if (!hot) return undefined;
  const o = hot === true ? {} : hot;
  return {
    cancelUnmounted: o.cancelUnmounted === true,
    maxGenerations: o.maxGenerations ?? 3,
    debounceMs: o.debounceMs ?? 100,
    ...(o.outDir ? { outDir: o.outDir } : {}),
    ...(o.rootDir ? { rootDir: o.rootDir } : {}),
  };
}

/** Starts watching when the run asks for hot reload; returns the function that stops it. */
export function watchWorkflowFile(
  env: RuntimeEnv,
  opts: RunOptions,
  workflow: FlowWorkflow | undefined,
  runId: string,
  onBuild: (build: HotBuild & { build: (ctx: never) => FlowNode }) => void,
): (() => void) | undefined {
  const hot = hotOptionsOf(opts.hot);
  if (!hot) return undefined;
  if (!opts.workflowPath || !env.hotReload) {
    env.warn(`Run ${runId}: hot reload needs RunOptions.workflowPath and a host that watches files (Node); ignored.`);
    return undefined;
  }
  return env.hotReload.watch(
    opts.workflowPath,
    { ...hot, rootDir: hot.rootDir ?? opts.rootDir ?? env.cwd ?? ".", ...(workflow ? { workflow } : {}) },
    onBuild,
    (error) => env.warn(`Run ${runId}: the edited workflow could not be loaded; keeping the running version.`, { error: String(error) }),
  );
}
