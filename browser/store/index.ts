/**
 * @module browser/store
 * The browser's store: PGlite on IndexedDB or OPFS behind the store port.
 */
export { offersOpfs, openBrowserPgliteStore } from "./pglite-browser.js";
export type { BrowserPgliteStore, BrowserPgliteStoreOptions, BrowserStorage } from "./pglite-browser.js";
export type { WriteBackCounts } from "./write-back.js";
