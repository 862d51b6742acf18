/**
 * @module node/hot
 * Hot reload of workflow files on Node: the `HotReloadPort` createNodeEnv supplies.
 * See docs/hot-reload.md.
 */
export { createNodeHotReload, HOT_RELOAD_DEFAULTS } from "./hot-reload.js";
export type { NodeHotReloadPort, NodeHotWatchOptions, StopWatching } from "./hot-reload.js";
export type { NodeHotBuild } from "./reload-hub.js";

// For Flow's other areas (not part of the documented entry).
export { bundleWorkflow } from "./bundle.js";
