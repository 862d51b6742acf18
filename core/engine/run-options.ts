/**
 * @module core/engine/run-options
 * Checks of RunOptions that SPEC.md makes binding and that no later step would catch:
 * refused at once with INVALID_ARGUMENT, before the run is opened. See docs/engine.md.
 */
import { FlowError } from "../errors.js";
import type { RunOptions } from "./types.js";

/**
 * Throws INVALID_ARGUMENT for options that cannot work: `effectPlatformRuntime` `node` or
 * `worker` without an `effectPlatformLayer` (SPEC.md "RunOptions").
 * @example
 * checkRunOptions({ input: {}, effectPlatformRuntime: "node" }); // throws: pass effectPlatformLayer
 */
export function checkRunOptions(opts: RunOptions): void {
  const runtime = opts.effectPlatformRuntime;
  if (runtime !== undefined && !["bun", "node", "worker"].includes(runtime)) {
    throw new FlowError("INVALID_ARGUMENT", `effectPlatformRuntime must be bun, node or worker, got ${String(runtime)}.`, { effectPlatformRuntime: runtime });
  }
  if ((runtime === "node" || runtime === "worker") && opts.effectPlatformLayer === undefined) {
    throw new FlowError(
      "INVALID_ARGUMENT",
      `effectPlatformRuntime "${runtime}" needs effectPlatformLayer (the Effect platform layer of that runtime, e.g. NodeContext.layer); pass it, or leave effectPlatformRuntime out.`,
      { effectPlatformRuntime: runtime },
    );
  }
}
