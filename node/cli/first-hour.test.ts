/**
 * The first hour with `flow` (issue 10), through real `flow` processes: a workflow file in a
 * folder whose package.json says "type": "commonjs" (what `npm init -y` writes), with its store
 * at a path of its own; deliveries that find that store and refuse what nothing can take;
 * progress, summaries and warnings printed once; closed pipes; compile errors in one line.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "node/cli/bin.mjs");
const ENV = { ...process.env, NO_COLOR: "1", FLOW_SNAPSHOTS: "off" };

const REVIEW = `import { z } from "zod";
import { createFlow } from "durable-flow";

const { flow, Workflow, Task, Signal, outputs } = createFlow(
  { input: z.object({ topic: z.string() }), step: z.object({ value: z.number() }) },
  { dbPath: "data/review.db" },
);

let calls = 0;

export default flow((ctx) => (
  <Workflow name="review">
    <Task id="draft" output={outputs.step} retryPolicy={{ initialDelayMs: 50 }}>
      {() => {
        if (++calls === 1) throw new Error("flaky once");
        return { value: ctx.input.topic.length };
      }}
    </Task>
    <Signal id="go" schema={z.object({ ok: z.boolean() })} dependsOn={["draft"]}>
      {(data) => <Task id="publish" output={outputs.step}>{{ value: data.ok ? 1 : 0 }}</Task>}
    </Signal>
  </Workflow>
));
`;

/** A project folder: package.json as given (or none), zod and durable-flow installed (linked). */
function project(packageJson: object | undefined): string {
  const dir = tempDir("flow-first-hour-");
  if (packageJson) writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(ROOT, "node_modules/zod"), join(dir, "node_modules/zod"), "dir");
  symlinkSync(ROOT, join(dir, "node_modules/durable-flow"), "dir");
  return dir;
}

function flow(cwd: string, ...args: string[]) {
  return flowWith({}, cwd, ...args);
}

function flowWith(env: Record<string, string>, cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...ENV, ...env }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stdout}${r.stderr}` };
}

describe("the first hour with flow", () => {
  it("runs a workflow from a commonjs folder, delivers to its own store, refuses what nothing takes, and reports once", () => {
    const dir = project({ name: "my-app", version: "1.0.0", type: "commonjs" });
    writeFileSync(join(dir, "review.tsx"), REVIEW);

    // Loads although the folder is commonjs; the retry says when; the summary and the parked
    // hint name the real file.
    const first = flow(dir, "up", "review.tsx", "--input", '{"topic":"durable"}', "--run-id", "r1");
    expect(first.code, first.all).toBe(0);
    expect(first.stdout).toMatch(/✗ draft TASK_FAILED: [^\n]*flaky once — retrying in 50 ms at \d\d:\d\d:\d\d\n/);
    expect(first.stdout).toMatch(/Run r1 waiting-event in [\d.]+ m?s: 1 task finished, 0 failed, 0 skipped; 2 attempts\.\n/);
    expect(first.stdout).toContain("then: flow up review.tsx --run-id r1 --resume");

    // Without --workflow the project's default store does not exist: refused, not "Delivered".
    const elsewhere = flow(dir, "signal", "go", "--run-id", "r1", "--payload", '{"ok":true}');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^flow signal: STORE_NOT_FOUND: No Flow store at .*--workflow <file>.*\n$/);

    // With --workflow it is the workflow's own store; a payload its Signal rejects is refused.
    const bad = flow(dir, "signal", "go", "--run-id", "r1", "--payload", '{"ok":"yes"}', "--workflow", "review.tsx");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^flow signal: SIGNAL_PAYLOAD_INVALID: The payload of signal "go" does not match the schema of "go" in run r1: ok: Invalid input: expected boolean, received string\. .*\n$/);
    const good = flow(dir, "signal", "go", "--run-id", "r1", "--payload", '{"ok":true}', "--workflow", "review.tsx", "--delivery-id", "d1");
    expect(good.code, good.all).toBe(0);
    // The command it prints to resume the run names the workflow's store, as the delivery did.
    expect(good.stdout).toContain("resumed: flow resume r1 --workflow review.tsx (");

    // The edited file is noticed once, in the CLI's own words (no raw Node warning).
    appendFileSync(join(dir, "review.tsx"), "// edited\n");
    const resumed = flow(dir, "up", "review.tsx", "--run-id", "r1", "--resume");
    expect(resumed.code, resumed.all).toBe(0);
    expect(resumed.all.match(/workflow changed/gi)).toHaveLength(1);
    expect(resumed.stderr).toMatch(/^! Run r1: the workflow changed since the run started/m);
    expect(resumed.all).not.toMatch(/\(node:\d+\)|FLOW_WARNING|previousHash/);
    expect(resumed.stdout).toMatch(/Run r1 finished in [\d.]+ m?s: 1 task finished, 0 failed, 0 skipped; 1 attempt\.\n/);

    // Resuming a finished run says nothing ran (refusing deliveries to it: cli-errors.test.tsx).
    expect(flow(dir, "up", "review.tsx", "--run-id", "r1", "--resume").stdout).toMatch(/^Run r1 is finished already; nothing ran\.\n\{/);

    // flow runs <id>: nodes in plan order with state and attempts, counts, recent events.
    const shown = flow(dir, "runs", "r1", "--workflow", "review.tsx");
    expect(shown.code, shown.all).toBe(0);
    expect(shown.stdout).toMatch(/^Run r1 {2}finished {2}\(review\)\n/);
    expect(shown.stdout).toMatch(/Nodes \(plan order\):\n {2}finished +draft +2 attempts +\d[^\n]*\n {2}finished +go +0 attempts\n {2}finished +publish +1 attempt +\d/);
    expect(shown.stdout).toMatch(/\n3 nodes \(3 finished\), 3 attempts, (\d+) events\n\nRecent events \(last 10 of \1\):\n/);
    expect(shown.stdout).toMatch(/ {2}#\d+ +\d\d:\d\d:\d\d\.\d{3} {2}● run finished\n$/);
  }, 120_000);

  it("writes a workflow file's runs where FLOW_DB_PATH or flow.config.json names the store, which flow runs reads", () => {
    const dir = project({ name: "my-app", version: "1.0.0", type: "module" });
    writeFileSync(join(dir, "hello.tsx"), `import { z } from "zod";
import { createFlow } from "durable-flow";
const { flow, Workflow, Task, outputs } = createFlow({ step: z.object({ value: z.number() }) });
export default flow(() => <Workflow name="hello"><Task id="a" output={outputs.step}>{{ value: 1 }}</Task></Workflow>);
`);
    const listed = (env: Record<string, string>) => (JSON.parse(flowWith(env, dir, "runs", "--json").stdout) as Array<{ runId: string }>).map((r) => r.runId);
    const fromEnv = { FLOW_DB_PATH: "data/env.db" };
    expect(flowWith(fromEnv, dir, "up", "hello.tsx", "--run-id", "e1").code).toBe(0);
    expect(listed(fromEnv)).toEqual(["e1"]);
    writeFileSync(join(dir, "flow.config.json"), JSON.stringify({ dbPath: "data/config.db" }));
    expect(flow(dir, "up", "hello.tsx", "--run-id", "c1").code).toBe(0);
    expect(listed({})).toEqual(["c1"]);
    expect(existsSync(join(dir, ".flow/flow.db"))).toBe(false);
  });

  it("does not crash when stdout closes early (flow up | true, flow runs | true)", () => {
    const dir = project(undefined);
    writeFileSync(join(dir, "review.tsx"), REVIEW);
    const r = spawnSync("bash", ["-c", `"${process.execPath}" "${BIN}" up review.tsx --input '{"topic":"x"}' --run-id p1 | true; echo "up=\${PIPESTATUS[0]}"; "${process.execPath}" "${BIN}" runs --db data/review.db | true; echo "runs=\${PIPESTATUS[0]}"`], {
      cwd: dir,
      env: ENV,
      encoding: "utf8",
    });
    expect(r.stdout, r.stderr).toBe("up=0\nruns=0\n");
    expect(r.stderr).not.toContain("EPIPE");
    // The run went on to park although nobody read its progress.
    expect(flow(dir, "runs", "--db", "data/review.db", "--json").stdout).toContain('"status": "waiting-event"');
  }, 60_000);

  it("runs a JSX workflow file its project's tsconfig leaves out, with Flow's JSX", () => {
    const dir = project({ name: "my-app", type: "module" });
    // The project compiles src/ only; tsx would compile flows/ as classic React JSX.
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "ESNext", moduleResolution: "bundler", jsx: "react-jsx", jsxImportSource: "durable-flow" }, include: ["src"] }));
    mkdirSync(join(dir, "flows"));
    writeFileSync(
      join(dir, "flows/hello.tsx"),
      `import { z } from "zod";\nimport { createFlow } from "durable-flow";\nconst { flow, Workflow, Task, outputs } = createFlow({ out: z.object({ n: z.number() }) }, { dbPath: "data/hello.db" });\nexport default flow(() => <Workflow name="hello"><Task id="one" output={outputs.out}>{{ n: 1 }}</Task></Workflow>);\n`,
    );
    const r = flow(dir, "up", "flows/hello.tsx", "--run-id", "h1");
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain('"status": "finished"');
    expect(r.all).not.toContain("React is not defined");
  }, 60_000);

  it("prints the cause a warning names: git's own words when a snapshot fails", () => {
    const dir = project({ name: "my-app", type: "module" });
    // A repository where git's `add` fails: a required clean filter that exits 1, on .txt files.
    const git = (...args: string[]) => spawnSync("git", ["-C", dir, ...args], { encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q");
    git("config", "filter.broken.clean", "false");
    git("config", "filter.broken.required", "true");
    writeFileSync(join(dir, ".gitattributes"), "*.txt filter=broken\n");
    writeFileSync(join(dir, ".gitignore"), "node_modules/\ndata/\n.flow/\n");
    git("add", ".gitattributes", ".gitignore");
    git("commit", "-q", "-m", "init");
    writeFileSync(
      join(dir, "notes.tsx"),
      `import { writeFileSync } from "node:fs";\nimport { z } from "zod";\nimport { createFlow } from "durable-flow";\nconst { flow, Workflow, Task, outputs } = createFlow({ out: z.object({ n: z.number() }) }, { dbPath: "data/notes.db" });\nexport default flow(() => <Workflow name="notes"><Task id="write" output={outputs.out}>{() => (writeFileSync("notes.txt", "x"), { n: 1 })}</Task></Workflow>);\n`,
    );
    const r = spawnSync(process.execPath, [BIN, "up", "notes.tsx", "--run-id", "n1"], { cwd: dir, env: { ...ENV, FLOW_SNAPSHOTS: "" }, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    // Said once, and followed by what git said, indented (the notice tells the reader to look below).
    expect(r.stderr.match(/could not snapshot/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/^! Run n1: could not snapshot [^\n]*Fix the cause below[^\n]*\n(?: {4}[^\n]*\n)* {4}[^\n]*notes\.txt: clean filter 'broken' failed\n/m);
  }, 60_000);

  it("reports a JSX syntax error as file:line:column and message, in one line, with or without a package.json", () => {
    for (const pkg of [undefined, { type: "module" }]) {
      const dir = project(pkg);
      writeFileSync(join(dir, "broken.tsx"), `import { createFlow } from "durable-flow";\nexport default (\n  <Workflow name="x">\n);\n`);
      const r = flow(dir, "up", "broken.tsx");
      expect(r.code, r.all).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^flow up: WORKFLOW_LOAD_FAILED: [^\n]*broken\.tsx:\d+:\d+: Unexpected end of file[^\n]+\(.*broken\.tsx does not compile; fix it and run again\)\.?\n$/);
      expect(r.stderr).not.toMatch(/esbuild|node_modules|\n {4}at /);
    }
  }, 60_000);
});
