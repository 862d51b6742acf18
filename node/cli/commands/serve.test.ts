import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";
import { workflowFilesIn } from "./serve.js";

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
});
