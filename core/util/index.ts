/**
 * @module core/util
 * Small runtime-agnostic helpers: the clock port, hashing, counts with their noun and loading an
 * optional package lazily.
 */
export { systemClock } from "./clock.js";
export type { ClockPort } from "./clock.js";
export { formatCount, plural } from "./count.js";
export { splitFirstLine } from "./first-line.js";
export { FOLD_FROM, foldAlike, isFolded } from "./fold-alike.js";
export type { Folded } from "./fold-alike.js";
export { sha256Hex, stableStringify } from "./hash.js";
export { lazyPackage } from "./lazy-package.js";
