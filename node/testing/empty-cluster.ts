/**
 * @module node/testing/empty-cluster
 * The empty PostgreSQL cluster the app bundles (node/store/pglite-seed.ts), unzipped as the Blob
 * a browser store's `loadDataDir` takes: read with Node here so that the browser tests' fixture
 * (browser/store/fixtures/memory-store.ts) imports no Node built-in.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { ensurePgliteSeed } from "../store/index.js";

let seed: Promise<Blob> | undefined;

/**
 * The bundled empty cluster as a Blob, read once per process.
 * @example
 * const store = await openBrowserPgliteStore({ storage: "memory", loadDataDir: await emptyCluster() });
 */
export const emptyCluster = (): Promise<Blob> => (seed ??= ensurePgliteSeed().then((file) => new Blob([gunzipSync(readFileSync(file))])));
