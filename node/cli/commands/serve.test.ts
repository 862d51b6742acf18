import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";
import { flowProcess } from "../../testing/flow-process.js";
import { workflowFilesIn } from "./serve.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("flow serve's workflow files", () => {
  it("takes scripts, and leaves out tests, declarations, tools' config files, _helpers and folders", () => {
    const dir = tempDir("flow-serve-files-");
    for (const file of ["deploy.tsx", "review.ts", "notes.mjs", "deploy.test.tsx", "deploy.spec.ts", "vitest.config.ts", "vite.config.mjs", "types.d.ts", "_shared.ts", "README.md"]) writeFileSync(join(dir, file), "export default flow(() => null);\n");
    mkdirSync(join(dir, "lib.ts"));
    expect(workflowFilesIn(dir).files.map((f) => basename(f))).toEqual(["deploy.tsx", "notes.mjs", "review.ts"]);
  });

  it("does not import a script that exports no default and no workflow: importing it would run it", () => {
    const dir = tempDir("flow-serve-files-");
    const files: Record<string, string> = {
      "a.tsx": "export default flow(() => <Workflow />);",
      "b.ts": "const workflow = flow(build);\nexport { workflow };",
      "c.ts": "export const workflow = flow(build);",
      "d.ts": 'export { default } from "./a.js";',
      "app.ts": 'import workflow from "./a.js";\nawait runWorkflow(workflow, { input: {} });',
      "util.ts": "export const helper = () => 1;",
    };
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const { files: taken, scripts } = workflowFilesIn(dir);
    expect(taken.map((f) => basename(f))).toEqual(["a.tsx", "b.ts", "c.ts", "d.ts"]);
    expect(scripts.map((f) => basename(f))).toEqual(["app.ts", "util.ts"]);
  });

  it("serves the others when one file does not load, says which and why, and gives up only when none loads", async () => {
    // A project of its own: durable-flow and zod installed (linked to this repository's).
    const dir = tempDir("flow-serve-broken-");
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "durable-flow"));
    symlinkSync(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"));
    writeFileSync(
      join(dir, "hello.tsx"),
      `import { z } from "zod";\nimport { createFlow } from "durable-flow";\nconst { flow, Workflow, Task, outputs } = createFlow({ out: z.object({ ok: z.boolean() }) });\nexport default flow(() => <Workflow name="hello"><Task id="a" output={outputs.out}>{{ ok: true }}</Task></Workflow>);\n`,
    );
    writeFileSync(join(dir, "broken.tsx"), "export default flow(( => <Workflow>\n");
    const serving = flowProcess(["serve", dir, "--port", "0"], { NO_COLOR: "1" }, dir);
    await expect.poll(() => serving.output(), { timeout: 30_000 }).toMatch(/listening on http:\/\/\S+/);
    const out = serving.output();
    expect(out).toContain(`flow serve: NOT serving ${join(dir, "broken.tsx")}: WORKFLOW_LOAD_FAILED`);
    expect(out).toMatch(/\(workflows: hello; not served, see above: broken\)/);
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    const workflows = (await (await fetch(`${url}/v1/rpc/listWorkflows`, { method: "POST", body: "{}" })).json()) as { result: Array<{ key: string }> };
    expect(workflows.result.map((w) => w.key)).toEqual(["hello"]);

    const alone = tempDir("flow-serve-broken-");
    writeFileSync(join(alone, "broken.tsx"), "export default flow(( => <Workflow>\n");
    const refused = flowProcess(["serve", alone, "--port", "0"], { NO_COLOR: "1" }, alone);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain("WORKFLOW_LOAD_FAILED");
  }, 60_000);
});
