import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isFlowError, openPgliteStore } from "durable-flow";
import { freshPgliteDir } from "../testing/pglite-dirs.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("PGlite data dir setup", () => {
  it("opens a data dir whose first setup was killed midway (SIGKILL while seeding)", async () => {
    const dataDir = freshPgliteDir();
    const parent = dirname(dataDir);
    const script = `import { openPgliteStore } from "durable-flow"; await openPgliteStore({ dataDir: ${JSON.stringify(dataDir)} }); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repo, stdio: "ignore" });
    // Kill it the moment the seeding dir appears (the copy is under way, or just done).
    const seeding = () => readdirSync(parent).some((n) => n.startsWith(`${basename(dataDir)}.seeding-`));
    const deadline = Date.now() + 30_000;
    while (!seeding() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("close", r));
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false);
    const store = await openPgliteStore({ dataDir });
    try {
      await store.execute("CREATE TABLE t (n int)");
      await store.execute("INSERT INTO t VALUES (7)");
      expect(await store.query("SELECT n FROM t")).toEqual([{ n: 7 }]);
      expect(readdirSync(parent).filter((n) => n.includes(".seeding-"))).toEqual([]);
    } finally {
      await store.close();
      rmSync(parent, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a non-empty dir that is not a data dir, and names the fix", async () => {
    const dataDir = freshPgliteDir();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "postgresql.conf"), "# half a copy\n");
    const e = await openPgliteStore({ dataDir }).catch((error: unknown) => error);
    expect(isFlowError(e, "STORE_OPEN_FAILED")).toBe(true);
    expect((e as Error).message).toMatch(/delete it and open again/);
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  it("says a damaged data dir is damaged and what to do", async () => {
    const dataDir = freshPgliteDir();
    mkdirSync(join(dataDir, "base"), { recursive: true });
    writeFileSync(join(dataDir, "PG_VERSION"), "17\n");
    const e = await openPgliteStore({ dataDir }).catch((error: unknown) => error);
    expect(isFlowError(e, "STORE_OPEN_FAILED")).toBe(true);
    expect((e as Error).message).toMatch(/damaged.*restore .* from a backup, or delete it/s);
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }, 30_000);
});
