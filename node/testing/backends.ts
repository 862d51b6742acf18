/**
 * @module node/testing/backends
 * The backends every engine test runs on, with the same assertions (issue: "the engine's
 * whole test suite runs, parameterized, on SQLite, PGlite and PostgreSQL"). A backend makes
 * a fresh, isolated store per call: a SQLite file in a temp dir, the test process's PGlite
 * instance reset to a new store's state (node/testing/pglite-shared.ts; a PGlite data dir copied
 * from the initialized template, node/store/pglite-template.ts, when a store of the test already
 * holds it), or a new schema in the PostgreSQL test database (node/testing/postgres-test-db.ts). `sameStoreAs` opens the same
 * store again, as a second process would. Stores opened during a test are closed (and their
 * dirs and schemas removed) when the test finishes. Test-only: excluded from the package
 * exports.
 */
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { tempDir } from "./temp-dir.js";
import type { CreateFlowOptions, FlowApi } from "../../core/api/index.js";
import type { SchemaMap } from "../../core/components/index.js";
import type { RuntimeEnv } from "../../core/engine/index.js";
import { createFlow } from "../create-flow.js";
import { createFlowPostgres } from "../create-flow-postgres.js";
import { freshPgliteDir } from "./pglite-dirs.js";
import { lendPgliteDir, type LentPgliteDir } from "./pglite-shared.js";
import { freshPostgresSchema } from "./postgres-test-db.js";

export interface TestApiOptions {
  env?: Partial<RuntimeEnv>;
  /** Reuse the store of an earlier api (same file / database), e.g. to resume in a "new process". */
  sameStoreAs?: StoreLocation;
  /** Factory options such as `tablePrefix`. */
  factory?: Pick<CreateFlowOptions, "tablePrefix" | "readableName">;
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

export { tempDir };

export const sqliteBackend: TestBackend = {
  name: "sqlite",
  async open(schemas, opts = {}) {
    const dbPath = opts.sameStoreAs?.location ?? join(tempDir(), "flow.db");
    const api = createFlow(schemas, { dbPath, ...opts.factory, ...(opts.env ? { env: opts.env } : {}) });
    return { api, location: { backend: "sqlite", location: dbPath }, close: async () => {} };
  },
};

/** How the current test ended, for cleanups that keep something for the next test. */
interface TestEnd {
  /** Failed or timed out: its work may still run (a timed-out test is not stopped). */
  failed: boolean;
}

type Cleanup = (end: TestEnd) => Promise<void>;

/** What to undo when the current test finishes: every close first, then the removals. */
let cleanups: { close: Cleanup[]; remove: Cleanup[] } | null = null;

/**
 * Registers `fn` to run when the current test finishes; false (and nothing registered) outside
 * a test (a `beforeAll`, a script), where the caller's `close()` is the only cleanup.
 */
function afterThisTest(phase: "close" | "remove", fn: Cleanup): boolean {
  if (!cleanups) {
    const mine = { close: [] as Cleanup[], remove: [] as Cleanup[] };
    try {
      onTestFinished(async ({ task }) => {
        cleanups = null;
        const end = { failed: task.result?.state === "fail" };
        for (const f of [...mine.close, ...mine.remove]) await f(end);
      });
    } catch {
      return false;
    }
    cleanups = mine;
  }
  cleanups[phase].push(fn);
  return true;
}

export const pgliteBackend: TestBackend = {
  name: "pglite",
  async open(schemas, opts = {}) {
    let dataDir = opts.sameStoreAs?.location;
    if (!dataDir) {
      // Inside a test, the process's shared instance when it is free (reset when the test ends,
      // after its stores closed: node/testing/pglite-shared.ts); else a new data dir. After a
      // failed test the instance is dropped instead: a timed-out test may still be writing.
      let lent: LentPgliteDir | undefined;
      const inTest = afterThisTest("remove", async ({ failed }) => lent?.release({ reuse: !failed }));
      lent = inTest ? await lendPgliteDir({ withFlowTables: true }) : undefined;
      dataDir = lent?.dataDir ?? freshPgliteDir();
    }
    const api = await createFlowPostgres(schemas, { provider: "pglite", dataDir, ...opts.factory, ...(opts.env ? { env: opts.env } : {}) });
    afterThisTest("close", () => api.close());
    return { api, location: { backend: "pglite", location: dataDir }, close: () => api.close() };
  },
};

export const postgresBackend: TestBackend = {
  name: "postgres",
  async open(schemas, opts = {}) {
    const fresh = opts.sameStoreAs ? undefined : await freshPostgresSchema();
    const url = opts.sameStoreAs?.location ?? fresh!.url;
    const api = await createFlowPostgres(schemas, { connectionString: url, ...opts.factory, ...(opts.env ? { env: opts.env } : {}) });
    afterThisTest("close", () => api.close());
    if (fresh) afterThisTest("remove", () => fresh.drop());
    return { api, location: { backend: "postgres", location: url }, close: () => api.close() };
  },
};

/** Backends the engine suite runs on: every `describe.each(testBackends)` runs on all three. */
export const testBackends: TestBackend[] = [sqliteBackend, pgliteBackend, postgresBackend];
