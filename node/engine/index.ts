/**
 * @module node/engine
 * The engine's Node bindings: the process environment it reads and the run log on disk.
 */
export { createNodeEnv, isOwnerAlive, prepareSnapshots, routeWarnings } from "./env.js";
