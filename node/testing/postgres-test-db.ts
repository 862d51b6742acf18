/**
 * @module node/testing/postgres-test-db
 * Isolated PostgreSQL stores for tests: each is a fresh schema in the test database that
 * scripts/setup.d/postgres.sh makes, reached through a URL whose `options` parameter sets the
 * `search_path`, so the URL alone names the store (child processes get it as a string).
 * A schema costs a few milliseconds; a database would cost a hundred. Test-only: excluded from
 * the package exports.
 */
import pg from "pg";

/** The test database: FLOW_TEST_POSTGRES_URL, else what scripts/setup.d/postgres.sh makes. */
export const TEST_POSTGRES_URL = process.env.FLOW_TEST_POSTGRES_URL ?? "postgres://flow:flow@127.0.0.1:5432/flow_test";

const PREFIX = "flowt_";
/** Schemas older than this are leftovers of killed test processes and are dropped. */
const LEFTOVER_AGE_S = 3600;

let admin: pg.Pool | undefined;
let swept = false;
let counter = 0;

function adminPool(): pg.Pool {
  if (!admin) {
    admin = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true });
    admin.on("error", () => {});
  }
  return admin;
}

/** The URL of `schema` in the test database (search_path set through `options`). */
export function schemaUrl(schema: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

async function sweepLeftovers(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE '${PREFIX}%'`);
  const cutoff = Math.floor(Date.now() / 1000) - LEFTOVER_AGE_S;
  for (const { nspname } of rows) {
    const born = Number(nspname.split("_")[1]);
    if (Number.isFinite(born) && born < cutoff) await pool.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  }
}

/** A new, empty schema; `drop()` removes it with everything in it. */
export async function freshPostgresSchema(): Promise<{ schema: string; url: string; drop(): Promise<void> }> {
  const pool = adminPool();
  try {
    if (!swept) {
      swept = true;
      await sweepLeftovers(pool);
    }
    const schema = `${PREFIX}${Math.floor(Date.now() / 1000)}_${process.pid}_${++counter}`;
    await pool.query(`CREATE SCHEMA "${schema}"`);
    return { schema, url: schemaUrl(schema), drop: async () => void (await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)) };
  } catch (cause) {
    throw new Error(
      `The postgres test backend cannot reach ${new URL(TEST_POSTGRES_URL).host}: ${(cause as Error).message}. Run scripts/setup.d/postgres.sh (npm test does) or set FLOW_TEST_POSTGRES_URL.`,
      { cause },
    );
  }
}
