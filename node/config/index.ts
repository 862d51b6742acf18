/**
 * @module node/config
 * Configuration: the config file, resolving which backend (SQLite, PGlite, PostgreSQL) to open,
 * and the marker a store migration leaves.
 */
export { BACKENDS, CONFIG_FILE_NAME, FLOW_ENV } from "./config-file.js";
export type { BackendName, EnvMap, FlowConfigFile } from "./config-file.js";
export { markerPathOf, newMarker, readMarker, writeMarker } from "./migration-marker.js";
export { resolveBackend, resolveDbPath } from "./resolve-backend.js";
export type { ConfigSource, ResolveBackendOptions, ResolvedBackend } from "./resolve-backend.js";
