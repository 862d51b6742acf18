import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stringify as toYaml } from "yaml";
import {
  createOpenApiTool,
  createOpenApiTools,
  createOpenApiToolSync,
  createOpenApiToolsSync,
  getDefinedToolMetadata,
  isFlowError,
  listOperations,
  loadOpenApiSpec,
  type OpenApiSkippedOperation,
} from "durable-flow";
import * as coreApi from "durable-flow/core";
import { startTestServer, type TestServer } from "./testing.js";

/** A small description exercising each feature; served, written to disk and passed inline. */
function petstore(serverUrl: string) {
  const { port } = new URL(serverUrl);
  return {
    openapi: "3.0.3",
    info: { title: "Pets", version: "1.0.0" },
    servers: [{ url: "http://{host}:{port}/{base}", variables: { host: { default: "127.0.0.1" }, port: { default: port }, base: { default: "v1", enum: ["v1", "v2"] } } }],
    paths: {
      "/pets": {
        get: {
          operationId: "listPets",
          summary: "List pets",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", maximum: 100 } },
            { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
            { name: "ids", in: "query", explode: false, schema: { type: "array", items: { type: "integer" } } },
            { name: "filter", in: "query", style: "deepObject", explode: true, schema: { type: "object", properties: { kind: { type: "string" }, age: { type: "object", properties: { gt: { type: "integer" } } } } } },
            { name: "X-Request-Id", in: "header", required: true, schema: { type: "string" } },
            { name: "session", in: "cookie", schema: { type: "string" } },
          ],
        },
        post: {
          operationId: "createPet",
          description: "Create a pet.",
          requestBody: { $ref: "#/components/requestBodies/NewPet" },
        },
      },
      "/pets/{petId}": {
        parameters: [{ $ref: "#/components/parameters/PetId" }],
        get: { operationId: "getPet", summary: "Get a pet", description: "Returns one pet by id." },
        put: { operationId: "replacePet", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } } },
        delete: { operationId: "deletePet", deprecated: true },
        patch: {
          operationId: "renamePet",
          requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { name: { type: "string" }, meta: { type: "object", additionalProperties: { type: "string" } }, nicknames: { type: "array", items: { type: "string" } } } } } } },
        },
      },
      "/pets/{petId}/photo": {
        post: {
          operationId: "uploadPhoto",
          parameters: [{ $ref: "#/components/parameters/PetId" }],
          requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object", properties: { file: { type: "string", format: "binary" } } } } } },
        },
      },
      "/pets/{petId}/notes": {
        post: {
          parameters: [{ $ref: "#/components/parameters/PetId" }],
          requestBody: { content: { "text/plain": { schema: { type: "string" } } } },
        },
      },
      "/session": { get: { operationId: "whoami", parameters: [{ name: "sid", in: "cookie", required: true, schema: { type: "string" } }] } },
    },
    components: {
      parameters: { PetId: { $ref: "#/components/parameters/PetIdInner" }, PetIdInner: { name: "petId", in: "path", required: true, description: "The pet's id", schema: { type: "integer" } } },
      requestBodies: { NewPet: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } } } },
      schemas: {
        NewPet: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 }, tag: { type: "string", nullable: true }, owner: { $ref: "#/components/schemas/Owner" } } },
        Pet: { allOf: [{ $ref: "#/components/schemas/NewPet" }, { type: "object", required: ["id"], properties: { id: { type: "integer" } } }] },
        Owner: { type: "object", properties: { name: { type: "string" }, pets: { type: "array", items: { $ref: "#/components/schemas/Pet" } }, friend: { $ref: "#/components/schemas/Owner" } } },
      },
    },
  };
}

let server: TestServer;
let spec: ReturnType<typeof petstore>;
let dir: string;
const quiet = { onSkip: (_s: OpenApiSkippedOperation[]) => undefined };

beforeAll(async () => {
  server = await startTestServer((req, res) => {
    if (req.path === "/specs/pets.yaml") return void res.writeHead(200, { "content-type": "application/yaml" }).end(toYaml(spec));
    if (req.path === "/specs/relative.json") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...spec, servers: [{ url: "/api" }] }));
    if (req.path === "/v1/pets/404") return void res.writeHead(404, { "content-type": "application/json" }).end('{"message":"no such pet"}');
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ method: req.method, path: req.path, query: [...req.query], headers: req.headers, body: req.body }));
  });
  spec = petstore(server.url);
  dir = realpathSync(mkdtempSync(join(tmpdir(), "flow-openapi-")));
  writeFileSync(join(dir, "pets.json"), JSON.stringify(spec));
  writeFileSync(join(dir, "pets.yaml"), toYaml(spec));
  writeFileSync(join(dir, "swagger.json"), JSON.stringify({ swagger: "2.0", info: { title: "old", version: "1" }, paths: {} }));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

type Echo = { method: string; path: string; query: [string, string][]; headers: Record<string, string>; body: string };
const echo = (result: { body: unknown }) => result.body as Echo;

describe("OpenAPI input forms", () => {
  const ids = ["listPets", "createPet", "getPet", "replacePet", "deletePet", "renamePet", "uploadPhoto", "post_pets_petId_notes", "whoami"];

  it("lists operations from an object, JSON text, YAML text and a file path", () => {
    const expected = listOperations(spec);
    expect(expected.map((o) => o.operationId)).toEqual(ids);
    expect(expected[0]).toEqual({ operationId: "listPets", method: "get", path: "/pets", summary: "List pets" });
    expect(expected.find((o) => o.operationId === "createPet")!.summary).toBe("");
    expect(listOperations(JSON.stringify(spec))).toEqual(expected);
    expect(listOperations(toYaml(spec))).toEqual(expected);
    expect(listOperations(join(dir, "pets.yaml"))).toEqual(expected);
    expect(listOperations(relative(process.cwd(), join(dir, "pets.json")))).toEqual(expected);
  });

  it("loads a URL in the async forms, and refuses it in the sync forms", async () => {
    const tools = await createOpenApiTools(`${server.url}/specs/pets.yaml`, quiet);
    expect(Object.keys(tools)).toContain("getPet");
    expect((await createOpenApiTool(`${server.url}/specs/pets.yaml`, "getPet")).name).toBe("getPet");
    const error = (() => {
      try {
        createOpenApiToolsSync(`${server.url}/specs/pets.yaml`);
      } catch (e) {
        return e;
      }
    })();
    expect(isFlowError(error, "OPENAPI_UNSUPPORTED")).toBe(true);
  });

  it("resolves a relative server URL against the URL the description came from", async () => {
    const tools = await createOpenApiTools(`${server.url}/specs/relative.json`, quiet);
    const res = await tools.getPet!.execute({ path: { petId: 3 } });
    expect(echo(res).path).toBe("/api/pets/3");
  });

  it("reads file paths only through an injected reader in durable-flow/core", async () => {
    const error = await coreApi.createOpenApiTools(join(dir, "pets.json")).catch((e: unknown) => e);
    expect(isFlowError(error, "OPENAPI_INVALID")).toBe(true);
    expect((error as Error).message).toMatch(/no file reader/);
    const read = vi.fn(async (_path: string) => JSON.stringify(spec));
    const tools = await coreApi.createOpenApiTools("specs/pets.json", { readFile: read, ...quiet });
    expect(read).toHaveBeenCalledWith("specs/pets.json");
    expect(Object.keys(tools)).toContain("listPets");
  });

  it("refuses Swagger 2.0 and documents that are not OpenAPI 3", () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isFlowError(e) ? e.code : String(e);
      }
    };
    expect(codeOf(() => createOpenApiToolsSync(join(dir, "swagger.json")))).toBe("OPENAPI_UNSUPPORTED");
    expect(codeOf(() => listOperations({ openapi: "2.5.0", info: { title: "x", version: "1" }, paths: {} }))).toBe("OPENAPI_INVALID");
    expect(codeOf(() => listOperations("key: [unclosed\n"))).toBe("OPENAPI_INVALID");
    expect(codeOf(() => listOperations(join(dir, "missing.yaml")))).toBe("OPENAPI_INVALID");
  });

  it("bundles references to other files in the async forms and refuses them in the sync forms", async () => {
    const split = join(dir, "split");
    mkdirSync(join(split, "schemas"), { recursive: true });
    writeFileSync(
      join(split, "main.yaml"),
      toYaml({ ...spec, paths: { "/pets": { post: { operationId: "createPet", requestBody: { required: true, content: { "application/json": { schema: { $ref: "./schemas/pet.yaml#/Pet" } } } } } } }, components: {} }),
    );
    writeFileSync(join(split, "schemas", "pet.yaml"), toYaml({ Pet: { type: "object", required: ["name"], properties: { name: { type: "string" }, owner: { $ref: "./owner.json" } } } }));
    writeFileSync(join(split, "schemas", "owner.json"), JSON.stringify({ type: "object", properties: { name: { type: "string" }, pet: { $ref: "pet.yaml#/Pet" } } }));
    const tools = await createOpenApiTools(join(split, "main.yaml"));
    const res = await tools.createPet!.execute({ body: { name: "Rex", owner: { name: "Ana", pet: { name: "Rex" } } } });
    expect(JSON.parse(echo(res).body)).toEqual({ name: "Rex", owner: { name: "Ana", pet: { name: "Rex" } } });
    const invalid = await tools.createPet!.execute({ body: { owner: { pet: { name: 5 } } } } as never).catch((e: unknown) => e);
    expect(isFlowError(invalid, "TOOL_INPUT_INVALID")).toBe(true);
    expect(() => createOpenApiToolsSync(join(split, "main.yaml"))).toThrow(/another document/);
  });
});

describe("OpenAPI tool schemas", () => {
  const tools = () => createOpenApiToolsSync(spec, quiet);

  it("groups parameters by location and marks required groups, with descriptions from the spec", () => {
    const t = tools();
    expect(t.getPet!.description).toBe("Get a pet\n\nReturns one pet by id.");
    expect(t.getPet!.jsonSchema).toEqual({
      type: "object",
      properties: { path: { type: "object", properties: { petId: { type: "integer", description: "The pet's id" } }, required: ["petId"], additionalProperties: false } },
      required: ["path"],
      additionalProperties: false,
    });
    const list = t.listPets!.jsonSchema as { properties: Record<string, { properties: Record<string, unknown> }>; required: string[] };
    expect(Object.keys(list.properties)).toEqual(["query", "header"]);
    expect(Object.keys(list.properties.query!.properties)).toEqual(["limit", "tags", "ids", "filter"]);
    expect(list.required).toEqual(["header"]);
    expect(t.createPet!.description).toBe("Create a pet.");
    expect(t.deletePet!.description).toMatch(/^DELETE \/pets\/\{petId\}\n\nDeprecated/);
  });

  it("turns nested and circular $refs into $defs, nullable into a null type", () => {
    const schema = tools().createPet!.jsonSchema as Record<string, any>;
    expect(schema.properties.body).toEqual({ $ref: "#/$defs/NewPet" });
    expect(Object.keys(schema.$defs).sort()).toEqual(["NewPet", "Owner", "Pet"]);
    expect(schema.$defs.NewPet.properties.tag).toEqual({ type: ["string", "null"] });
    expect(schema.$defs.Owner.properties.friend).toEqual({ $ref: "#/$defs/Owner" });
    expect(schema.$defs.Pet.allOf[0]).toEqual({ $ref: "#/$defs/NewPet" });
  });

  it("validates input against the converted schema, circular parts included, before any request", async () => {
    const before = server.requests.length;
    const t = tools();
    for (const bad of [{}, { path: {} }, { path: { petId: "seven" } }, { path: { petId: 1 }, extra: true }]) {
      const error = await t.getPet!.execute(bad as never).catch((e: unknown) => e);
      expect(isFlowError(error, "TOOL_INPUT_INVALID"), JSON.stringify(bad)).toBe(true);
    }
    const deep = await t.createPet!.execute({ body: { name: "a", owner: { friend: { friend: { pets: [{ name: "b" }] } } } } }).catch((e: unknown) => e);
    expect(isFlowError(deep, "TOOL_INPUT_INVALID")).toBe(true);
    expect((deep as { details: { issues: unknown[] } }).details.issues).not.toHaveLength(0);
    expect(server.requests.length).toBe(before);
  });

  it("sets sideEffect/idempotent from the method", () => {
    const t = tools();
    expect(getDefinedToolMetadata(t.getPet)).toEqual({ name: "getPet", sideEffect: false, idempotent: true });
    expect(getDefinedToolMetadata(t.replacePet)).toEqual({ name: "replacePet", sideEffect: true, idempotent: true });
    expect(getDefinedToolMetadata(t.deletePet)).toEqual({ name: "deletePet", sideEffect: true, idempotent: true });
    expect(getDefinedToolMetadata(t.createPet)).toEqual({ name: "createPet", sideEffect: true, idempotent: false });
    expect(getDefinedToolMetadata(t.renamePet)).toEqual({ name: "renamePet", sideEffect: true, idempotent: false });
  });

  it("leaves out operations it cannot call (required cookie, multipart-only body) and says why", () => {
    const skipped: OpenApiSkippedOperation[] = [];
    const t = createOpenApiToolsSync(spec, { onSkip: (s) => skipped.push(...s) });
    expect(Object.keys(t)).toEqual(["listPets", "createPet", "getPet", "replacePet", "deletePet", "renamePet", "post_pets_petId_notes"]);
    expect(skipped.map((s) => [s.operationId, s.reason.match(/cookie|multipart/)?.[0]])).toEqual([
      ["uploadPhoto", "multipart"],
      ["whoami", "cookie"],
    ]);
    expect(() => createOpenApiToolSync(spec, "uploadPhoto")).toThrow(expect.objectContaining({ code: "OPENAPI_UNSUPPORTED" }));
    expect(() => createOpenApiToolsSync(spec, { include: ["whoami"] })).toThrow(expect.objectContaining({ code: "OPENAPI_UNSUPPORTED" }));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    createOpenApiToolsSync(spec);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("uploadPhoto (POST /pets/{petId}/photo)"));
    warn.mockRestore();
  });
});

describe("OpenAPI tool selection", () => {
  it("applies include, exclude (which wins) and namePrefix (which does not affect filtering)", () => {
    expect(Object.keys(createOpenApiToolsSync(spec, { include: ["getPet", "listPets"] }))).toEqual(["listPets", "getPet"]);
    expect(Object.keys(createOpenApiToolsSync(spec, { include: ["getPet", "listPets"], exclude: ["listPets"] }))).toEqual(["getPet"]);
    expect(Object.keys(createOpenApiToolsSync(spec, { exclude: ["getPet", "uploadPhoto", "whoami"] }))).not.toContain("getPet");
    const prefixed = createOpenApiToolsSync(spec, { include: ["getPet"], namePrefix: "pets_" });
    expect(Object.keys(prefixed)).toEqual(["pets_getPet"]);
    expect(prefixed.pets_getPet!.name).toBe("pets_getPet");
  });

  it("applies curated operations: false, a name, a description, response examples, include", () => {
    const t = createOpenApiToolsSync(spec, {
      include: ["getPet"],
      operations: {
        getPet: { name: "fetch_pet", description: "Look up one pet.", responseExamples: [{ status: 200, description: "found", value: { id: 1, name: "Rex" } }, { status: 404, value: { message: "no such pet" } }] },
        listPets: { include: true },
        createPet: false,
        deletePet: { include: false },
      },
    });
    expect(Object.keys(t)).toEqual(["listPets", "fetch_pet"]);
    expect(t.fetch_pet!.description).toBe('Look up one pet.\n\nExample responses:\n- 200 found: {"id":1,"name":"Rex"}\n- 404: {"message":"no such pet"}');
    const all = createOpenApiToolsSync(spec, { operations: { createPet: false, deletePet: { include: false } }, ...quiet });
    expect(Object.keys(all)).not.toContain("createPet");
    expect(Object.keys(all)).not.toContain("deletePet");
  });

  it("fails with OPENAPI_OPERATION_NOT_FOUND for ids the description does not have", async () => {
    expect(() => createOpenApiToolsSync(spec, { include: ["getPett"] })).toThrow(expect.objectContaining({ code: "OPENAPI_OPERATION_NOT_FOUND" }));
    expect(() => createOpenApiToolsSync(spec, { operations: { nope: false } })).toThrow(/nope/);
    expect(() => createOpenApiToolSync(spec, "nope")).toThrow(expect.objectContaining({ code: "OPENAPI_OPERATION_NOT_FOUND" }));
  });

  it("makes a single tool regardless of include/exclude, honouring the curated name and namePrefix", async () => {
    const t = createOpenApiToolSync(spec, "getPet", { include: ["listPets"], exclude: ["getPet"], namePrefix: "x_", operations: { getPet: { name: "pet" } } });
    expect(t.name).toBe("x_pet");
    const a = await createOpenApiTool(join(dir, "pets.yaml"), "getPet");
    expect(echo(await a.execute({ path: { petId: 1 } })).path).toBe("/v1/pets/1");
  });
});

describe("OpenAPI tool execute", () => {
  it("fills server variables from their defaults, and sends path, query styles, header params", async () => {
    const t = createOpenApiToolsSync(join(dir, "pets.json"), quiet);
    const res = await t.listPets!.execute({
      query: { limit: 5, tags: ["a", "b c"], ids: [1, 2], filter: { kind: "cat", age: { gt: 2 } } },
      header: { "X-Request-Id": "req-7" },
    });
    expect(res.ok).toBe(true);
    const e = echo(res);
    expect(e.method).toBe("GET");
    expect(e.path).toBe("/v1/pets");
    expect(e.query).toEqual([["limit", "5"], ["tags", "a"], ["tags", "b c"], ["ids", "1,2"], ["filter[kind]", "cat"], ["filter[age][gt]", "2"]]);
    expect(e.headers["x-request-id"]).toBe("req-7");
    expect(e.headers.cookie).toBeUndefined();
  });

  it("sends JSON, form-urlencoded and text bodies with their content types", async () => {
    const t = createOpenApiToolsSync(spec, quiet);
    const put = echo(await t.replacePet!.execute({ path: { petId: 9 }, body: { id: 9, name: "Rex", tag: null } }));
    expect([put.method, put.path, put.headers["content-type"]]).toEqual(["PUT", "/v1/pets/9", "application/json"]);
    expect(JSON.parse(put.body)).toEqual({ id: 9, name: "Rex", tag: null });
    const patch = echo(await t.renamePet!.execute({ path: { petId: 9 }, body: { name: "Max", meta: { a: "1" }, nicknames: ["m", "x"] } }));
    expect(patch.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(patch.body).toString()).toBe("name=Max&meta%5Ba%5D=1&nicknames%5B%5D=m&nicknames%5B%5D=x");
    const note = echo(await t.post_pets_petId_notes!.execute({ path: { petId: 9 }, body: "good dog" }));
    expect([note.headers["content-type"], note.body]).toEqual(["text/plain", "good dog"]);
  });

  it("sends apiKey (header and query), bearer and basic auth, and the configured headers", async () => {
    const call = async (options: Parameters<typeof createOpenApiToolSync>[2]) => echo(await createOpenApiToolSync(spec, "getPet", options).execute({ path: { petId: 1 } }));
    expect((await call({ auth: { type: "apiKey", in: "header", name: "X-Api-Key", value: "k1" } })).headers["x-api-key"]).toBe("k1");
    expect((await call({ auth: { type: "apiKey", in: "query", name: "api_key", value: "k2" } })).query).toEqual([["api_key", "k2"]]);
    expect((await call({ auth: { type: "bearer", token: "t0k" } })).headers.authorization).toBe("Bearer t0k");
    expect((await call({ auth: { type: "basic", username: "u", password: "p" } })).headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    expect((await call({ headers: { "User-Agent": "flow-test" } })).headers["user-agent"]).toBe("flow-test");
  });

  it("uses baseUrl over the servers, and returns non-2xx answers as results", async () => {
    const t = createOpenApiToolSync(spec, "getPet", { baseUrl: `${server.url}/v1/` });
    expect(await t.execute({ path: { petId: 404 } })).toMatchObject({ ok: false, status: 404, body: { message: "no such pet" } });
    const none = createOpenApiToolSync({ ...spec, servers: [] }, "getPet");
    await expect(none.execute({ path: { petId: 1 } })).rejects.toThrow(/baseUrl/);
  });

  it("passes an injected fetch and the context's time limit", async () => {
    const calls: string[] = [];
    const t = createOpenApiToolSync(spec, "getPet", {
      fetch: async (url, init) => (calls.push(`${init?.method} ${String(url)}`), new Response("{}", { headers: { "content-type": "application/json" } })),
    });
    expect((await t.execute({ path: { petId: 2 } })).body).toEqual({});
    expect(calls).toEqual([`GET http://127.0.0.1:${new URL(server.url).port}/v1/pets/2`]);
    const slow = createOpenApiToolSync(spec, "getPet", { fetch: (_u, init) => new Promise((_r, reject) => init!.signal!.addEventListener("abort", () => reject(new Error("aborted")))) });
    const error = await slow.execute({ path: { petId: 2 } }, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(isFlowError(error, "TOOL_TIMEOUT")).toBe(true);
  });

  it("loads a description as one object with loadOpenApiSpec", async () => {
    const loaded = await loadOpenApiSpec(join(dir, "pets.yaml"));
    expect(loaded.info.title).toBe("Pets");
    expect(listOperations(loaded)).toHaveLength(9);
  });
});
