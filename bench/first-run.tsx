/**
 * A process's first run in a repository, as a user's script runs it (docs/performance.md "The git
 * shell started before the run"): each sample is a new process that calls `createFlow` and runs a
 * Sequence of `--tasks` compute tasks rooted in one repository of `--files` committed files, its
 * first snapshot included (the private index is removed before each sample, unless `--prepared`), and in turn the same
 * run in a directory of the same files outside any repository. Prints one JSON line with the
 * medians of `runMs` (from `createFlow` to the run's end) and `cpuMs` (Node's CPU in that time)
 * for each, and `ratio` (repository / outside): what a process that runs once pays for time
 * travel, its git shell's start (a fork of the whole Node process) included. With `--cli`, each
 * sample is `flow up` instead (bench/support/flow-up-sequence.tsx, in the directory, as a user
 * types it), and `runMs` is the whole command's time (its start and the workflow file's loading
 * included: `flow up` starts the first snapshot before it loads the file); no `cpuMs`:
 *
 *   npx tsx bench/first-run.tsx                        # 10,000 files, 1,000 tasks, 7 samples each
 *   npx tsx bench/first-run.tsx --files 1000 --node-modules 1500   # a JavaScript project
 *   npx tsx bench/first-run.tsx --cli                  # `flow up`, the whole command
 *   npx tsx bench/first-run.tsx --nested               # folders of 10 files, three deep, as a source tree
 *   npx tsx bench/first-run.tsx --files 1000 --node-modules 1500 --excluded-by info   # node_modules in .git/info/exclude
 *   npx tsx bench/first-run.tsx --files 1000 --node-modules 1500 --excluded-by global  # in the file core.excludesFile names
 *   npx tsx bench/first-run.tsx --prepared             # `.git/flow` kept: a repository an earlier process prepared
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runWorkflow } from "durable-flow";
import { computeSequence } from "./support/compute-sequence.js";
import { benchWorkspace } from "./support/repository.js";
import { scratchDir } from "./support/scratch.js";

const { values } = parseArgs({ options: { files: { type: "string" }, tasks: { type: "string" }, samples: { type: "string" }, "node-modules": { type: "string" }, nested: { type: "boolean" }, "excluded-by": { type: "string" }, prepared: { type: "boolean" }, child: { type: "string" }, cli: { type: "boolean" } } });
const TASKS = Number(values.tasks ?? 1_000);

if (values.child !== undefined) {
  delete process.env.FLOW_SNAPSHOTS;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const wf = computeSequence(TASKS, { dbPath: join(scratchDir("flow-bench-first-"), "flow.db") });
  const result = await runWorkflow(wf, { input: {}, rootDir: values.child, logDir: null });
  if (result.status !== "finished") throw new Error(`run ${result.status}: ${JSON.stringify(result.error)}`);
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ runMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }));
} else {
  const files = Number(values.files ?? 10_000);
  const nodeModules = Number(values["node-modules"] ?? 0);
  const excludedBy = values["excluded-by"] ?? "gitignore";
  if (excludedBy !== "gitignore" && excludedBy !== "info" && excludedBy !== "global") throw new Error("--excluded-by must be gitignore, info or global");
  const shape = { nodeModules, nested: values.nested ?? false, excludedBy } as const;
  const repo = benchWorkspace(files, true, shape);
  const plain = benchWorkspace(files, false, shape);
  const cli = (dir: string) => {
    const started = performance.now();
    const child = spawnSync(process.execPath, [fileURLToPath(new URL("../node/cli/bin.mjs", import.meta.url)), "up", fileURLToPath(new URL("support/flow-up-sequence.tsx", import.meta.url)), "--quiet", "--log-dir", "none"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, FLOW_SNAPSHOTS: "", FLOW_BENCH_TASKS: String(TASKS) },
    });
    if (child.status !== 0) throw new Error(child.stderr);
    return { runMs: performance.now() - started, cpuMs: Number.NaN };
  };
  const sample = (dir: string) => {
    if (!values.prepared) rmSync(join(dir, ".git", "flow"), { recursive: true, force: true });
    if (values.cli) return cli(dir);
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--child", dir, "--tasks", String(TASKS)], {
      encoding: "utf8",
      // tsx reads the tsconfig of the working directory; this one says how JSX compiles.
      env: { ...process.env, TSX_TSCONFIG_PATH: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) },
    });
    if (child.status !== 0) throw new Error(child.stderr);
    return JSON.parse(child.stdout.trim().split("\n").pop()!) as { runMs: number; cpuMs: number };
  };
  const samples = Array.from({ length: Number(values.samples ?? 7) }, () => ({ repo: sample(repo), plain: sample(plain) }));
  const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  const runMs = median(samples.map((s) => s.repo.runMs));
  const plainMs = median(samples.map((s) => s.plain.runMs));
  console.log(
    JSON.stringify({
      bench: "first-run",
      files,
      ...(nodeModules ? { nodeModules, excludedBy } : {}),
      ...(values.nested ? { nested: true } : {}),
      ...(values.cli ? { command: "flow up" } : {}),
      ...(values.prepared ? { prepared: true } : {}),
      tasks: TASKS,
      samples: samples.length,
      runMs,
      ...(values.cli ? {} : { cpuMs: median(samples.map((s) => s.repo.cpuMs)) }),
      plainRunMs: plainMs,
      ...(values.cli ? {} : { plainCpuMs: median(samples.map((s) => s.plain.cpuMs)) }),
      ratio: Math.round((runMs / plainMs) * 100) / 100,
    }),
  );
}
