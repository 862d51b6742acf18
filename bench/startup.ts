/**
 * Start-up and install benchmark (issue 22, "a lighter process" and "a lighter install"): what
 * a user's plain `node` pays for the BUILT package (`npm run build` first: it measures `dist/`,
 * with no TypeScript loader). One JSON line per measure, each from fresh processes:
 *
 *   npm run build && npx tsx bench/startup.ts            # 5 samples of each timing (median)
 *   npx tsx bench/startup.ts --samples 9
 *   npx tsx bench/startup.ts --root ../flow-before   # another checkout's dist/ (its own build)
 *
 * Lines (`bench: "startup"`, field `measure`):
 * - `import`: `await import("durable-flow")` in a new process: `ms` (median), `cpuMs` (CPU time
 *   the import took: steadier than `ms` on a loaded machine), `rssMb` after it;
 * - `modules`: what that import loads: `esm` (modules through the ES module loader), `cjs`
 *   (modules `require` loaded), `packages` (the packages among them);
 * - `open-sqlite`: `createFlow` on a new SQLite file plus one query: `ms` from process start
 *   work (import included) and `rssMb`;
 * - `run-1000`: a Sequence of 1,000 compute tasks on that store: `ms` (the run) and `rssMb` after it;
 * - `cli-version` and `cli-runs`: `node dist/node/cli/bin.mjs --version` and `... runs` (in the
 *   directory holding that store): `ms`, wall time of the whole process, and `cpuMs`, the CPU
 *   time it used (Node's start-up included), medians;
 * - `tarball`: `npm pack --dry-run` of the repository: `bytes` (packed), `unpackedBytes`, `files`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadedModules, packagesOf } from "../node/package/loaded-modules.js";

const { values } = parseArgs({ options: { samples: { type: "string", default: "5" }, root: { type: "string" } } });
const ROOT = values.root ? resolve(values.root) : fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "dist/node/cli/bin.mjs");
const samples = Number(values.samples);
if (!existsSync(join(ROOT, "dist/node/index.js"))) throw new Error("dist/ is missing: run `npm run build` first (the benchmark measures the built package).");

const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== "NODE_OPTIONS"));
const print = (line: Record<string, unknown>) => console.log(JSON.stringify({ bench: "startup", ...line }));
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs an ES module body under plain node in the repository (so `durable-flow` is the built package); its last stdout line is JSON. */
function node(code: string, cwd = ROOT): Record<string, number> {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd, env, encoding: "utf8" });
  if (child.status !== 0) throw new Error(`node exited ${child.status}:\n${child.stdout}\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Record<string, number>;
}

// Prints the CPU time of the process as it exits (its last stderr line).
const CPU_AT_EXIT = `data:text/javascript,${encodeURIComponent(`process.on("exit", () => { const c = process.cpuUsage(); process.stderr.write("\\ncpu " + (c.user + c.system) / 1000 + "\\n"); });`)}`;

/** Wall time and CPU time of a whole `node` process, ms. */
function wall(args: string[], cwd: string): { ms: number; cpuMs: number } {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--import", CPU_AT_EXIT, ...args], { cwd, env: { ...env, NO_COLOR: "1" }, encoding: "utf8" });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`node ${args.join(" ")} exited ${child.status}:\n${child.stdout}\n${child.stderr}`);
  return { ms, cpuMs: Number(/cpu (\S+)\s*$/.exec(child.stderr)?.[1]) };
}

const rss = `Math.round(process.memoryUsage().rss / 1048576 * 10) / 10`;

const imports = Array.from({ length: samples }, () =>
  node(`const t = performance.now(); const c = process.cpuUsage(); await import("durable-flow"); const d = process.cpuUsage(c); console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (d.user + d.system) / 1000, rssMb: ${rss} }));`),
);
print({ measure: "import", ms: round(median(imports.map((s) => s.ms!))), cpuMs: round(median(imports.map((s) => s.cpuMs!))), rssMb: median(imports.map((s) => s.rssMb!)), samples });

const loaded = loadedModules(`await import("durable-flow");`, ROOT);
print({ measure: "modules", esm: loaded.esm.length, cjs: loaded.cjs.length, packages: packagesOf([...loaded.esm, ...loaded.cjs]) });

const dir = mkdtempSync(join(tmpdir(), "flow-startup-"));
try {
  const dbPath = join(dir, ".flow", "flow.db");
  const open = node(
    `const t = performance.now();
const { z } = await import("zod");
const { createFlow } = await import("durable-flow");
const api = createFlow({ out: z.object({ i: z.number().int() }) }, { dbPath: ${JSON.stringify(dbPath)} });
const rows = api.db.select().from(api.tables.out).all();
console.log(JSON.stringify({ ms: performance.now() - t, rows: rows.length, rssMb: ${rss} }));`,
  );
  print({ measure: "open-sqlite", ms: round(open.ms!), rssMb: open.rssMb });

  const run = node(
    `const { z } = await import("zod");
const { createFlow, runWorkflow } = await import("durable-flow");
const { jsx } = await import("durable-flow/jsx-runtime");
const { flow, Workflow, Sequence, Task, outputs } = createFlow({ out: z.object({ i: z.number().int() }) }, { dbPath: ${JSON.stringify(dbPath)} });
const workflow = flow(() => jsx(Workflow, { name: "startup", children: jsx(Sequence, { children: Array.from({ length: 1000 }, (_, i) => jsx(Task, { id: "t" + i, output: outputs.out, children: () => ({ i }) }, i)) }) }));
const t = performance.now();
const result = await runWorkflow(workflow, { input: {}, logDir: null, rootDir: ${JSON.stringify(tmpdir())} });
if (result.status !== "finished") throw new Error(result.status);
console.log(JSON.stringify({ ms: performance.now() - t, rssMb: ${rss}, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));`,
  );
  print({ measure: "run-1000", ms: round(run.ms!), rssMb: run.rssMb, peakRssMb: run.peakRssMb });

  for (const [measure, args] of [["cli-version", ["--version"]], ["cli-runs", ["runs"]]] as const) {
    const times = Array.from({ length: samples }, () => wall([BIN, ...args], dir));
    print({ measure, ms: round(median(times.map((t) => t.ms))), cpuMs: round(median(times.map((t) => t.cpuMs))), samples });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const [pack] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
print({ measure: "tarball", bytes: pack!.size, mb: round(pack!.size / 1048576, 2), unpackedBytes: pack!.unpackedSize, files: pack!.entryCount });
