import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../tools/testing.js";
import { runCli } from "../testing.js";

const BIN = fileURLToPath(new URL("../bin.mjs", import.meta.url));
const PETSTORE = fileURLToPath(new URL("../../../node_modules/@readme/oas-examples/3.0/yaml/petstore.yaml", import.meta.url));
const SWAGGER = fileURLToPath(new URL("../../../node_modules/@readme/oas-examples/2.0/json/petstore.json", import.meta.url));

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "flow-openapi-cli-")));
  copyFileSync(PETSTORE, join(dir, "petstore.yaml"));
  server = await startTestServer((_req, res) => res.writeHead(200, { "content-type": "application/yaml" }).end(readFileSync(PETSTORE)));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const flow = (...argv: string[]) => runCli(["openapi", ...argv], { cwd: dir });

describe("flow openapi list", () => {
  it("prints method, path, operationId and summary of each operation of a file relative to the cwd", async () => {
    const { code, stdout } = await flow("list", "petstore.yaml");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("20 operations");
    expect(lines[0]).toMatch(/^POST\s+\/pet\s+addPet\s+Add a new pet to the store$/);
    expect(lines).toContainEqual(expect.stringMatching(/^GET\s+\/pet\/\{petId\}\s+getPetById\s+Find pet by ID$/));
    expect(lines).toContainEqual(expect.stringMatching(/^DELETE\s+\/user\/\{username\}\s+deleteUser\s+Delete user$/));
  });

  it("prints JSON with --json, and reads a URL", async () => {
    const { code, stdout } = await flow("list", `${server.url}/petstore.yaml`, "--json");
    expect(code).toBe(0);
    const ops = JSON.parse(stdout) as Array<{ operationId: string; method: string; path: string; summary: string }>;
    expect(ops).toHaveLength(20);
    expect(ops).toContainEqual({ operationId: "addPet", method: "post", path: "/pet", summary: "Add a new pet to the store" });
  });

  it("explains usage errors (exit 2) and unreadable descriptions (exit 1)", async () => {
    expect((await flow("list")).code).toBe(2);
    expect((await flow("show", "petstore.yaml")).stderr).toContain('unknown subcommand "show"');
    const swagger = await flow("list", SWAGGER);
    expect(swagger.code).toBe(1);
    expect(swagger.stderr).toContain("OPENAPI_UNSUPPORTED");
    const missing = await flow("list", "nope.yaml");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("OPENAPI_INVALID");
  });

  it("runs as the flow executable", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, "openapi", "list", "petstore.yaml"], { cwd: dir });
    expect(stdout).toContain("getPetById");
    expect(stdout.trimEnd().endsWith("20 operations")).toBe(true);
  });
});
