import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpTool, createOpenApiTools, isFlowError, loadOpenApiSpec } from "durable-flow";
import { sandboxDirs, startTestServer, type TestServer } from "./testing.js";

/** Two loopback origins: `a` redirects as its paths say, `b` echoes. */
let a: TestServer;
let b: TestServer;
beforeEach(async () => {
  b = await startTestServer();
  a = await startTestServer((req, res) => {
    const [, kind, status, where] = req.path.split("/");
    if (kind === "to-b") return void res.writeHead(Number(status), { location: `${b.url}/landed` }).end();
    if (kind === "to-a") return void res.writeHead(Number(status), { location: `${a.url}/landed-${where ?? ""}` }).end();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ method: req.method, path: req.path, headers: req.headers, body: req.body }));
  });
});
afterEach(async () => {
  await a.close();
  await b.close();
});

const credentials = { authorization: "Bearer top", "x-api-key": "k1", "x-custom-token": "t1", "x-session-id": "s1", cookie: "c=1" };

describe("redirects and credentials", () => {
  it("follows a cross-origin redirect without credential or custom auth headers", async () => {
    const http = createHttpTool({ defaultHeaders: { "x-api-key": "k1" } });
    const res = await http.execute({ url: `${a.url}/to-b/302`, headers: { accept: "application/json", "x-custom-token": "t1", "x-session-id": "s1", cookie: "c=1" }, auth: { type: "header", name: "x-org", value: "secret-org" } });
    expect(res.status).toBe(200);
    expect(b.requests).toHaveLength(1);
    const sent = b.requests[0]!.headers;
    for (const name of ["authorization", "x-api-key", "x-custom-token", "x-session-id", "cookie", "x-org"]) expect(sent[name], name).toBeUndefined();
    expect(sent.accept).toBe("application/json");
    const bearer = await http.execute({ url: `${a.url}/to-b/301`, auth: { type: "bearer", token: "top" } });
    expect(bearer.status).toBe(200);
    expect(b.requests[1]!.headers.authorization).toBeUndefined();
  });

  it("does not re-send a body to another origin: a cross-origin 307/308 is returned, not followed", async () => {
    for (const status of [307, 308]) {
      const res = await createHttpTool().execute({ url: `${a.url}/to-b/${status}`, method: "POST", body: { card: "4111" }, headers: credentials });
      expect(res.status).toBe(status);
      expect(res.headers.location).toBe(`${b.url}/landed`);
    }
    expect(b.requests).toHaveLength(0);
    // A 303 to another origin becomes a GET without the body (and without the credentials).
    const seeOther = await createHttpTool().execute({ url: `${a.url}/to-b/303`, method: "POST", body: { card: "4111" }, headers: credentials });
    expect(seeOther.status).toBe(200);
    expect(b.requests[0]).toMatchObject({ method: "GET", body: "" });
    expect(b.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("keeps headers and a 307 body on a same-origin redirect", async () => {
    const res = await createHttpTool().execute({ url: `${a.url}/to-a/307/x`, method: "POST", body: { n: 1 }, headers: credentials });
    expect(res.body).toMatchObject({ method: "POST", path: "/landed-x", body: '{"n":1}', headers: { authorization: "Bearer top", "x-api-key": "k1" } });
  });

  it("drops an OpenAPI apiKey header (and bearer) on a cross-origin redirect", async () => {
    const spec = { openapi: "3.0.3", info: { title: "t", version: "1" }, servers: [{ url: a.url }], paths: { "/to-b/302": { get: { operationId: "jump" } } } };
    const tools = await createOpenApiTools(spec, { auth: { type: "apiKey", in: "header", name: "x-partner", value: "p1" }, headers: { authorization: "Bearer top" } });
    expect((await tools.jump!.execute({})).status).toBe(200);
    expect(a.requests[0]!.headers["x-partner"]).toBe("p1");
    expect(b.requests[0]!.headers["x-partner"]).toBeUndefined();
    expect(b.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("OpenAPI path parameters", () => {
  it("refuses a path parameter of . or .., which a URL would collapse, and encodes slashes", async () => {
    const spec = { openapi: "3.0.3", info: { title: "t", version: "1" }, servers: [{ url: a.url }], paths: { "/items/{id}": { get: { operationId: "getItem", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }] } } } };
    const tools = await createOpenApiTools(spec);
    for (const id of ["..", ".", "%2e%2e"]) {
      const e = await tools.getItem!.execute({ path: { id } }).catch((error: unknown) => error);
      if (id === "%2e%2e") expect((e as { body: { path: string } }).body.path).toBe("/items/%252e%252e");
      else expect(isFlowError(e, "TOOL_INPUT_INVALID"), id).toBe(true);
    }
    const slashed = await tools.getItem!.execute({ path: { id: "a/../../admin" } });
    expect((slashed.body as { path: string }).path).toBe("/items/a%2F..%2F..%2Fadmin");
    expect(a.requests.map((r) => r.path)).toEqual(["/items/%252e%252e", "/items/a%2F..%2F..%2Fadmin"]);
  });
});

describe("OpenAPI $ref to local files", () => {
  it("refuses references outside the description's directory and rootDir, and keeps those inside", async () => {
    const dirs = sandboxDirs("flow-openapi-ref-");
    try {
      const api = join(dirs.root, "api");
      mkdirSync(join(api, "schemas"), { recursive: true });
      mkdirSync(join(dirs.base, "outside"));
      writeFileSync(join(dirs.base, "outside", "x.json"), JSON.stringify({ type: "string", description: "OUTSIDE-SECRET" }));
      writeFileSync(join(api, "schemas", "ok.json"), JSON.stringify({ type: "string", description: "inside" }));
      const withRef = (ref: string) => {
        const file = join(api, `spec-${Math.random().toString(36).slice(2)}.json`);
        writeFileSync(file, JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/x": { post: { operationId: "x", requestBody: { content: { "application/json": { schema: { $ref: ref } } } } } } } }));
        return file;
      };
      for (const ref of ["/etc/passwd", "../../outside/x.json", "./schemas/../../../outside/x.json", `file://${join(dirs.base, "outside", "x.json")}`]) {
        const e = await loadOpenApiSpec(withRef(ref)).catch((error: unknown) => error);
        expect(isFlowError(e, "OPENAPI_INVALID"), ref).toBe(true);
        expect(JSON.stringify(e)).not.toContain("OUTSIDE-SECRET");
        expect(String((e as Error).message)).not.toContain("root:x:0:0");
      }
      const inside = await createOpenApiTools(withRef("./schemas/ok.json"), { baseUrl: a.url, onSkip: () => undefined });
      expect(JSON.stringify(inside.x!.jsonSchema)).toContain("inside");
      // rootDir narrows further: the description itself must be inside it.
      const e = await loadOpenApiSpec(withRef("./schemas/ok.json"), { rootDir: join(dirs.root, "elsewhere") }).catch((error: unknown) => error);
      expect(isFlowError(e, "OPENAPI_INVALID")).toBe(true);
      // An object description has no directory for local references.
      const inline = { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/x": { get: { operationId: "x", responses: { "200": { $ref: join(api, "schemas", "ok.json") } } } } } };
      expect(isFlowError(await loadOpenApiSpec(inline).catch((error: unknown) => error), "OPENAPI_INVALID")).toBe(true);
    } finally {
      dirs.remove();
    }
  });
});

describe("bounded HTTP reads", () => {
  it("streams a huge response and stops reading at maxOutputBytes, with RSS bounded", async () => {
    let written = 0;
    const chunk = Buffer.alloc(1 << 20, "x");
    const total = 300 * (1 << 20);
    const huge: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(total) });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => huge.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = huge.address() as AddressInfo;
      const before = process.memoryUsage().rss;
      const res = await createHttpTool().execute({ url: `http://127.0.0.1:${port}/huge` }, { maxOutputBytes: 200_000 });
      const grew = process.memoryUsage().rss - before;
      expect(Buffer.byteLength(res.body as string)).toBeLessThanOrEqual(200_000);
      expect(res.body as string).toMatch(/\[output truncated: \d+ of 314572800 bytes omitted\]$/);
      expect(written).toBeLessThan(64 * (1 << 20));
      expect(grew).toBeLessThan(100 * (1 << 20));
    } finally {
      huge.closeAllConnections();
      await new Promise<void>((resolve) => huge.close(() => resolve()));
    }
  });
});
