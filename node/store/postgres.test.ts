import { describe, expect, it } from "vitest";
import { isFlowError, openPostgresStore } from "durable-flow";
import { runStoreContract } from "../../core/store/contract.js";
import { freshPostgresSchema, TEST_POSTGRES_URL } from "../testing/postgres-test-db.js";

runStoreContract("postgres", async () => {
  const db = await freshPostgresSchema();
  let store = openPostgresStore({ connectionString: db.url });
  return {
    store,
    reopen: async () => {
      await store.close();
      return (store = openPostgresStore({ connectionString: db.url }));
    },
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});

describe("postgres store", () => {
  it("names its target without the password", async () => {
    const store = openPostgresStore({ connectionString: "postgres://alice:s3cret-pw@db.example:6543/app" });
    try {
      expect(store.target).toBe("postgres://alice:***@db.example:6543/app");
    } finally {
      await store.close();
    }
  });

  it("accepts a connection object instead of a URL", async () => {
    const url = new URL(TEST_POSTGRES_URL);
    const store = openPostgresStore({
      connection: { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: url.pathname.slice(1) },
    });
    try {
      expect(await store.query(`SELECT current_database() AS db`)).toEqual([{ db: url.pathname.slice(1) }]);
    } finally {
      await store.close();
    }
  });

  it("fails the first statement when the password is wrong", async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.password = "not-the-password";
    const store = openPostgresStore({ connectionString: url.toString() });
    try {
      const error = await store.query(`SELECT 1`).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(isFlowError(error)).toBe(false);
      expect(store.target).not.toContain("not-the-password");
    } finally {
      await store.close();
    }
  });
});
