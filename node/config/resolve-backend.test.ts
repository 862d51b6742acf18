import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isFlowError } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { newMarker, writeMarker } from "./migration-marker.js";
import { resolveBackend, resolveDbPath } from "./resolve-backend.js";

const writeConfig = (dir: string, config: unknown, name = "flow.config.json") => {
  writeFileSync(join(dir, name), typeof config === "string" ? config : JSON.stringify(config));
  return join(dir, name);
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isFlowError(e) ? e.code : `not a FlowError: ${String(e)}`;
  }
  return "no error";
};

describe("resolveBackend", () => {
  it("defaults to sqlite at .flow/flow.db under cwd when nothing is set", () => {
    const cwd = tempDir();
    const r = resolveBackend({ cwd, env: {} });
    expect(r).toMatchObject({ backend: "sqlite", source: "default", dbPath: join(cwd, ".flow/flow.db"), pgliteDataDir: join(cwd, ".flow/pglite") });
    expect(r.configPath).toBeUndefined();
  });

  it("takes the backend from the environment, and infers it from FLOW_DATABASE_URL or FLOW_PGLITE_DIR", () => {
    const cwd = tempDir();
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "pglite" } })).toMatchObject({ backend: "pglite", source: "env" });
    expect(resolveBackend({ cwd, env: { FLOW_DATABASE_URL: "postgres://u@h/db" } })).toMatchObject({ backend: "postgres", source: "env", connectionString: "postgres://u@h/db" });
    expect(resolveBackend({ cwd, env: { FLOW_PGLITE_DIR: "data/pg" } })).toMatchObject({ backend: "pglite", pgliteDataDir: join(cwd, "data/pg") });
    expect(resolveBackend({ cwd, env: { FLOW_DB_PATH: "store/x.db" } })).toMatchObject({ backend: "sqlite", dbPath: join(cwd, "store/x.db"), pgliteDataDir: join(cwd, "store/pglite") });
  });

  it("reads flow.config.json in cwd, resolving its relative paths against the file's directory", () => {
    const cwd = tempDir();
    writeConfig(cwd, { backend: "pglite", pgliteDataDir: "var/pglite" });
    const r = resolveBackend({ cwd, env: {} });
    expect(r).toMatchObject({ backend: "pglite", source: "config", pgliteDataDir: join(cwd, "var/pglite"), configPath: join(cwd, "flow.config.json") });
    const other = tempDir();
    const path = writeConfig(other, { dbPath: "db/flow.db" }, "custom.json");
    expect(resolveBackend({ cwd, env: {}, configPath: path })).toMatchObject({ backend: "sqlite", dbPath: join(other, "db/flow.db") });
    expect(resolveBackend({ cwd, env: { FLOW_CONFIG: path } })).toMatchObject({ dbPath: join(other, "db/flow.db") });
  });

  it("ranks options over environment over config file", () => {
    const cwd = tempDir();
    writeConfig(cwd, { backend: "postgres", connectionString: "postgres://config@h/db", pgliteDataDir: "from-config" });
    expect(resolveBackend({ cwd, env: {} })).toMatchObject({ backend: "postgres", source: "config", connectionString: "postgres://config@h/db" });
    const fromEnv = resolveBackend({ cwd, env: { FLOW_BACKEND: "pglite" } });
    // The environment chose the backend; the location still comes from the file.
    expect(fromEnv).toMatchObject({ backend: "pglite", source: "env", pgliteDataDir: join(cwd, "from-config") });
    expect(resolveBackend({ cwd, env: { FLOW_DATABASE_URL: "postgres://env@h/db" } })).toMatchObject({ backend: "postgres", connectionString: "postgres://env@h/db" });
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "pglite" }, backend: "sqlite" })).toMatchObject({ backend: "sqlite", source: "options" });
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "sqlite" }, connectionString: "postgres://opt@h/db" })).toMatchObject({ backend: "postgres", source: "options", connectionString: "postgres://opt@h/db" });
  });

  it("fills ${NAME} in config strings from the environment, and fails on a missing name", () => {
    const cwd = tempDir();
    writeConfig(cwd, { connectionString: "postgres://app:${DB_PASSWORD}@db:5432/app" });
    expect(resolveBackend({ cwd, env: { DB_PASSWORD: "pw" } }).connectionString).toBe("postgres://app:pw@db:5432/app");
    expect(codeOf(() => resolveBackend({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
  });

  it("rejects bad JSON, unknown fields, unknown backends and a missing explicit config file", () => {
    const cwd = tempDir();
    writeConfig(cwd, "{ backend: pglite");
    expect(codeOf(() => resolveBackend({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
    writeConfig(cwd, { backend: "pglite", pgliteDir: "typo" });
    expect(codeOf(() => resolveBackend({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
    writeConfig(cwd, { backend: "mysql" });
    expect(codeOf(() => resolveBackend({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
    const clean = tempDir();
    expect(codeOf(() => resolveBackend({ cwd: clean, env: { FLOW_BACKEND: "mongo" } }))).toBe("BACKEND_CONFIG_INVALID");
    expect(codeOf(() => resolveBackend({ cwd: clean, env: {}, configPath: "missing.json" }))).toBe("BACKEND_CONFIG_INVALID");
  });

  it("needs a connection for postgres, falling back to DATABASE_URL and then the PG* variables", () => {
    const cwd = tempDir();
    expect(codeOf(() => resolveBackend({ cwd, env: { FLOW_BACKEND: "postgres" } }))).toBe("BACKEND_CONFIG_INVALID");
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "postgres", DATABASE_URL: "postgres://d@h/db" } }).connectionString).toBe("postgres://d@h/db");
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "postgres", PGHOST: "db.internal", PGPORT: "6432", PGUSER: "app", PGDATABASE: "flow" } }).connection).toEqual({
      host: "db.internal",
      port: 6432,
      user: "app",
      database: "flow",
    });
  });

  it("follows the migration marker when nothing else names a backend", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".flow"));
    const dbPath = join(cwd, ".flow/flow.db");
    writeMarker(`${dbPath}.migrated.json`, newMarker(dbPath, { backend: "pglite", dataDir: join(cwd, ".flow/moved") }, { schemaVersion: "0001", runCount: 0, sqliteRemoved: true }));
    expect(resolveBackend({ cwd, env: {} })).toMatchObject({ backend: "pglite", source: "marker", pgliteDataDir: join(cwd, ".flow/moved") });
    expect(resolveBackend({ cwd, env: { FLOW_BACKEND: "sqlite" } })).toMatchObject({ backend: "sqlite", source: "env" });
    writeMarker(`${dbPath}.migrated.json`, newMarker(dbPath, { backend: "postgres", url: "postgres://app:***@db/flow" }, { schemaVersion: "0001", runCount: 0, sqliteRemoved: true }));
    // The marker keeps no password, so the URL must come from elsewhere.
    expect(codeOf(() => resolveBackend({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
    expect(resolveBackend({ cwd, env: { FLOW_DATABASE_URL: "postgres://app:pw@db/flow" } })).toMatchObject({ backend: "postgres", connectionString: "postgres://app:pw@db/flow" });
  });
});

describe("resolveDbPath", () => {
  it("takes the option, then FLOW_DB_PATH, then the config file's dbPath, then .flow/flow.db; :memory: as it is", () => {
    const cwd = tempDir();
    expect(resolveDbPath({ cwd, env: {} })).toBe(join(cwd, ".flow/flow.db"));
    const other = tempDir();
    writeConfig(other, { dbPath: "db/flow.db" }, "custom.json");
    writeConfig(cwd, { dbPath: "from-config.db" });
    expect(resolveDbPath({ cwd, env: {} })).toBe(join(cwd, "from-config.db"));
    expect(resolveDbPath({ cwd, env: { FLOW_CONFIG: join(other, "custom.json") } })).toBe(join(other, "db/flow.db"));
    expect(resolveDbPath({ cwd, env: { FLOW_DB_PATH: "env.db" } })).toBe(join(cwd, "env.db"));
    expect(resolveDbPath({ cwd, env: { FLOW_DB_PATH: ":memory:" } })).toBe(":memory:");
    expect(resolveDbPath({ cwd, env: { FLOW_DB_PATH: "env.db" }, dbPath: "/abs/opt.db" })).toBe("/abs/opt.db");
    // The same file resolveBackend names, whichever level names it.
    for (const env of [{}, { FLOW_DB_PATH: "env.db" }]) expect(resolveDbPath({ cwd, env })).toBe(resolveBackend({ cwd, env }).dbPath);
  });

  it("does not read the config file when the option or the environment names the file", () => {
    const cwd = tempDir();
    writeConfig(cwd, "{ not json");
    expect(resolveDbPath({ cwd, env: { FLOW_DB_PATH: "env.db" } })).toBe(join(cwd, "env.db"));
    expect(codeOf(() => resolveDbPath({ cwd, env: {} }))).toBe("BACKEND_CONFIG_INVALID");
  });
});
