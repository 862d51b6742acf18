/**
 * @module node/testing/backends
 * The backends every engine test runs on, with the same assertions (issue: "the engine's
 * whole test suite runs, parameterized, on SQLite, PGlite and PostgreSQL"). A backend makes
 * a fresh, isolated store per call. Test-only: excluded from the package exports.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FlowApi } from "../../core/api/create-api.js";
import type { SchemaMap } from "../../core/components/types.js";
import type { RuntimeEnv } from "../../core/engine/world.js";
import { createFlow } from "../create-flow.js";

export interface TestApiOptions {
  env?: Partial<RuntimeEnv>;
  /** Reuse the store of an earlier api (same file / database), e.g. to resume in a "new process". */
  sameStoreAs?: StoreLocation;
}

/** Where a test store lives, so a second api can open the same one. */
export interface StoreLocation {
  backend: string;
  location: string;
}

export interface TestBackend {
  name: "sqlite" | "pglite" | "postgres";
  /** A fresh (or the same, with `sameStoreAs`) store with these schemas. */
  open<S extends SchemaMap>(schemas: S, opts?: TestApiOptions): Promise<{ api: FlowApi<S>; location: StoreLocation; close(): Promise<void> }>;
}

export function tempDir(prefix = "flow-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const sqliteBackend: TestBackend = {
  name: "sqlite",
  async open(schemas, opts = {}) {
    const dbPath = opts.sameStoreAs?.location ?? join(tempDir(), "flow.db");
    const api = createFlow(schemas, { dbPath, ...(opts.env ? { env: opts.env } : {}) });
    return { api, location: { backend: "sqlite", location: dbPath }, close: async () => {} };
  },
};

/** Backends the engine suite runs on. Issue 3 adds PGlite and PostgreSQL here. */
export const testBackends: TestBackend[] = [sqliteBackend];
