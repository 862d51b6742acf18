/**
 * @module node/engine
 * The engine's Node bindings: the process environment it reads and the run log on disk.
 */
export { createNodeEnv, isOwnerAlive, routeWarnings } from "./env.js";
