import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";
import { freshPostgresSchema } from "../../testing/postgres-test-db.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
// Inside the repository, so the workflow file resolves durable-flow and zod.
const dir = mkdtempSync(join(ROOT, "node/cli/commands/.up-exit-"));
const cleanups: Array<() => unknown> = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});
const file = join(dir, "on-backend.ts");
writeFileSync(
  file,
  // No JSX: a workflow file with top-level await is bundled by load-workflow.ts, whose build
  // does not apply the automatic JSX runtime today; jsx() calls are what JSX compiles to.
  `import { z } from "zod";
import { openFlowBackend } from "durable-flow";
import { jsx } from "durable-flow/jsx-runtime";
const api = await openFlowBackend({ step: z.object({ value: z.number() }) });
export default api.flow(() => jsx(api.Workflow, { name: "exit-test", children: jsx(api.Task, { id: "step", output: "step", children: () => ({ value: 1 }) }) }));
`,
);

/** Runs `flow up --json` and measures from the result line on stdout to the process's exit. */
function upAndTime(env: Record<string, string>): Promise<{ code: number | null; result: { status: string }; lingerMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", file, "--json", "--log-dir", "none"], { cwd: tempDir("flow-up-exit-"), env: { ...process.env, NO_COLOR: "1", ...env } });
    let out = "";
    let resultAt = 0;
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (!resultAt && out.includes('"type":"result"')) resultAt = performance.now();
    });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.includes('"type":"result"'));
      if (!line) return reject(new Error(`no result (exit ${code}): ${err}`));
      resolve({ code, result: JSON.parse(line), lingerMs: performance.now() - resultAt });
    });
  });
}

describe("flow up exits right after its result", () => {
  it.each([
    ["sqlite", async () => ({ FLOW_BACKEND: "sqlite" })],
    ["pglite", async () => ({ FLOW_BACKEND: "pglite", FLOW_PGLITE_DIR: join(tempDir("flow-up-exit-pg-"), "pg") })],
    [
      "postgres",
      async () => {
        const schema = await freshPostgresSchema();
        cleanups.push(() => schema.drop());
        return { FLOW_BACKEND: "postgres", FLOW_DATABASE_URL: schema.url };
      },
    ],
  ])("on %s", async (_name, envOf) => {
    const { code, result, lingerMs } = await upAndTime(await envOf());
    expect(result.status).toBe("finished");
    expect(code).toBe(0);
    // What this guards against is a process kept alive by the store after close (PGlite's wasm
    // keeps 10 s timers); closing PGlite itself can take over a second on a loaded machine.
    expect(lingerMs).toBeLessThan(4000);
  }, 90_000);
});
