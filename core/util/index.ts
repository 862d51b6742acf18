/**
 * @module core/util
 * Small runtime-agnostic helpers: the clock port, hashing and loading an optional package lazily.
 */
export { systemClock } from "./clock.js";
export type { ClockPort } from "./clock.js";
export { sha256Hex, stableStringify } from "./hash.js";
export { lazyPackage } from "./lazy-package.js";
