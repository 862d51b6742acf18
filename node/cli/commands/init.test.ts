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
    // An agent-backed example whose test scripts the model with the testing kit.
    expect(readFileSync(join(cwd, "My Flow!", "agent.tsx"), "utf8")).toContain("HostedChatAgent");
    expect(readFileSync(join(cwd, "My Flow!", "workflow.test.ts"), "utf8")).toContain('from "durable-flow/testing"');
    // Test runs go to a store in memory, not the project's .flow/flow.db.
    expect(readFileSync(join(cwd, "My Flow!", "vitest.config.ts"), "utf8")).toContain('env: { FLOW_DB_PATH: ":memory:" }');
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

  it("adds its scripts and dependencies to an existing package.json, keeping a durable-flow installed from a tarball", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "flow-init-"));
    dirs.push(cwd);
    const mine = { name: "mine", version: "1.0.0", type: "commonjs", scripts: { test: "echo mine" }, dependencies: { "durable-flow": "file:../flow/durable-flow-0.1.0.tgz", zod: "^4.0.0" } };
    writeFileSync(join(cwd, "package.json"), JSON.stringify(mine));
    const out = io(cwd);
    expect(await initCommand.run([], out)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ name: "mine", version: "1.0.0", type: "commonjs", scripts: { test: "echo mine", start: expect.stringContaining("flow up workflow.tsx") } });
    // npm init's placeholder test script gives way to the scaffold's.
    const fresh = mkdtempSync(join(tmpdir(), "flow-init-"));
    dirs.push(fresh);
    writeFileSync(join(fresh, "package.json"), JSON.stringify({ name: "fresh", type: "commonjs", scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
    expect(await initCommand.run([], io(fresh))).toBe(0);
    expect(JSON.parse(readFileSync(join(fresh, "package.json"), "utf8"))).toMatchObject({ type: "module", scripts: { test: "tsc --noEmit && vitest run" } });
    expect(pkg.dependencies).toEqual(mine.dependencies);
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["@types/node", "typescript", "vitest"]);
    expect(readFileSync(join(cwd, "workflow.tsx"), "utf8")).toContain("createFlow");
    expect(out.out).toContain("yours kept");
  });
});
