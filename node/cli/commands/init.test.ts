import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isFlowError } from "../../../core/errors.js";
import type { CliIO } from "../command.js";
import { initCommand } from "./init.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function io(cwd: string): CliIO & { out: string } {
  const self = { out: "", cwd, env: {}, isTTY: false, stdout: (t: string) => void (self.out += t), stderr: () => {} };
  return self;
}

describe("flow init", () => {
  it("writes a project named after its directory, on the versions Flow is tested with", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "flow-init-"));
    dirs.push(cwd);
    const out = io(cwd);
    expect(await initCommand.run(["My Flow!"], out)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(cwd, "My Flow!", "package.json"), "utf8"));
    const flowPkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    expect(pkg).toMatchObject({ name: "my-flow", type: "module", scripts: { test: "tsc --noEmit && vitest run" } });
    expect(pkg.dependencies).toEqual({ "durable-flow": `^${flowPkg.version}`, zod: flowPkg.dependencies.zod });
    expect(pkg.devDependencies.typescript).toBe(flowPkg.devDependencies.typescript);
    expect(JSON.parse(readFileSync(join(cwd, "My Flow!", "tsconfig.json"), "utf8")).compilerOptions.jsxImportSource).toBe("durable-flow");
    expect(readFileSync(join(cwd, "My Flow!", "workflow.tsx"), "utf8")).toContain('from "durable-flow"');
    expect(out.out).toContain('cd My Flow!');
  });

  it("refuses to overwrite existing files unless --force is given", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "flow-init-"));
    dirs.push(cwd);
    writeFileSync(join(cwd, "workflow.tsx"), "mine");
    const error = await initCommand.run([], io(cwd)).catch((e: unknown) => e);
    expect(isFlowError(error) && error.code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toContain("workflow.tsx");
    expect(readFileSync(join(cwd, "workflow.tsx"), "utf8")).toBe("mine");
    expect(await initCommand.run(["--force", "--name", "kept"], io(cwd))).toBe(0);
    expect(readFileSync(join(cwd, "workflow.tsx"), "utf8")).toContain("createFlow");
    expect(JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")).name).toBe("kept");
  });
});
