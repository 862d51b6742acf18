import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";
import { workflowFilesIn } from "./serve.js";

describe("flow serve's workflow files", () => {
  it("takes scripts, and leaves out tests, declarations, tools' config files, _helpers and folders", () => {
    const dir = tempDir("flow-serve-files-");
    for (const file of ["deploy.tsx", "review.ts", "notes.mjs", "deploy.test.tsx", "deploy.spec.ts", "vitest.config.ts", "vite.config.mjs", "types.d.ts", "_shared.ts", "README.md"]) writeFileSync(join(dir, file), "");
    mkdirSync(join(dir, "lib.ts"));
    expect(workflowFilesIn(dir).map((f) => basename(f))).toEqual(["deploy.tsx", "notes.mjs", "review.ts"]);
  });
});
