/**
 * @module core/util
 * Small runtime-agnostic helpers: hashing and loading an optional package lazily.
 */
export { sha256Hex, stableStringify } from "./hash.js";
export { lazyPackage } from "./lazy-package.js";
