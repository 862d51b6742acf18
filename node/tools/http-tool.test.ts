import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpTool, getDefinedToolMetadata, isFlowError } from "durable-flow";
import { startTestServer, type TestServer } from "./testing.js";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((req, res) => {
    if (req.path === "/no-content") return void res.writeHead(204).end();
    if (req.path === "/reset") return void res.writeHead(205).end();
    if (req.path === "/empty") return void res.writeHead(200, { "content-type": "application/json" }).end();
    if (req.path === "/text") return void res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-trace": "t-1" }).end("plain words");
    if (req.path === "/problem") return void res.writeHead(404, "Not Found", { "content-type": "application/problem+json" }).end(JSON.stringify({ title: "missing" }));
    if (req.path === "/big") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: "z".repeat(5000) }));
    if (req.path === "/slow") return void setTimeout(() => res.writeHead(200).end("late"), 2000);
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ method: req.method, path: req.path, query: [...req.query], headers: req.headers, body: req.body }));
  });
});
afterEach(() => server.close());

type Echo = { method: string; path: string; query: [string, string][]; headers: Record<string, string>; body: string };

describe("createHttpTool", () => {
  it("is named http, has side effects, is not idempotent, and describes itself generically by default", () => {
    const http = createHttpTool();
    expect(getDefinedToolMetadata(http)).toEqual({ name: "http", sideEffect: true, idempotent: false });
    expect(http.description).toMatch(/HTTP request/);
    expect(createHttpTool({ description: "Call the billing API" }).description).toBe("Call the billing API");
    expect(http.jsonSchema).toMatchObject({ type: "object", required: ["url"], properties: { method: { enum: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"], default: "GET" } } });
  });

  it("sends GET by default with query values (null and undefined skipped) and returns the parsed JSON body", async () => {
    const res = await createHttpTool().execute({ url: `${server.url}/items?fixed=1`, query: { page: 2, q: "a b", all: true, skip: null, gone: undefined } });
    expect(res).toMatchObject({ ok: true, status: 200, statusText: "OK" });
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const body = res.body as Echo;
    expect(body.method).toBe("GET");
    expect(body.query).toEqual([["fixed", "1"], ["page", "2"], ["q", "a b"], ["all", "true"]]);
  });

  it("serializes an object body as JSON with a JSON content type unless one is set", async () => {
    const http = createHttpTool();
    const a = (await http.execute({ url: `${server.url}/a`, method: "POST", body: { n: 1, list: ["x"] } })).body as Echo;
    expect(a.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(a.body)).toEqual({ n: 1, list: ["x"] });
    const b = (await http.execute({ url: `${server.url}/b`, method: "PUT", headers: { "Content-Type": "application/vnd.custom+json" }, body: { n: 2 } })).body as Echo;
    expect(b.headers["content-type"]).toBe("application/vnd.custom+json");
    expect(JSON.parse(b.body)).toEqual({ n: 2 });
  });

  it("passes strings, URL-search-params, form data and blobs through as they are", async () => {
    const http = createHttpTool();
    const s = (await http.execute({ url: `${server.url}/s`, method: "PATCH", headers: { "content-type": "text/csv" }, body: "a,b\n1,2" })).body as Echo;
    expect([s.method, s.body, s.headers["content-type"]]).toEqual(["PATCH", "a,b\n1,2", "text/csv"]);
    const p = (await http.execute({ url: `${server.url}/p`, method: "POST", body: new URLSearchParams({ a: "1", b: "x y" }) })).body as Echo;
    expect([p.body, p.headers["content-type"]]).toEqual(["a=1&b=x+y", "application/x-www-form-urlencoded;charset=UTF-8"]);
    const form = new FormData();
    form.set("field", "value");
    const f = (await http.execute({ url: `${server.url}/f`, method: "POST", body: form })).body as Echo;
    expect(f.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(f.body).toContain('name="field"\r\n\r\nvalue');
    const blob = (await http.execute({ url: `${server.url}/blob`, method: "POST", body: new Blob(["raw bytes"], { type: "application/octet-stream" }) })).body as Echo;
    expect([blob.body, blob.headers["content-type"]]).toEqual(["raw bytes", "application/octet-stream"]);
  });

  it("ignores the body for GET and HEAD", async () => {
    const http = createHttpTool();
    const g = (await http.execute({ url: `${server.url}/g`, body: { ignored: true } })).body as Echo;
    expect(g.body).toBe("");
    expect(g.headers["content-type"]).toBeUndefined();
    const h = await http.execute({ url: `${server.url}/h`, method: "HEAD", body: "ignored" });
    expect(h).toMatchObject({ ok: true, status: 200, body: null });
    expect(server.requests.at(-1)).toMatchObject({ method: "HEAD", body: "" });
  });

  it("sends each auth form", async () => {
    const http = createHttpTool();
    const headersOf = async (auth: Parameters<typeof http.execute>[0]["auth"]) => ((await http.execute({ url: `${server.url}/auth`, auth })).body as Echo).headers;
    expect((await headersOf({ type: "bearer", token: "tok-1" })).authorization).toBe("Bearer tok-1");
    expect((await headersOf({ type: "basic", username: "ana", password: "pä:ss" })).authorization).toBe(`Basic ${Buffer.from("ana:pä:ss").toString("base64")}`);
    expect((await headersOf({ type: "header", name: "X-Api-Key", value: "k-9" }))["x-api-key"]).toBe("k-9");
  });

  it("sends default headers, which a header of the same name in the call overrides", async () => {
    const http = createHttpTool({ defaultHeaders: { "X-Client": "flow", Accept: "application/json" } });
    const a = ((await http.execute({ url: `${server.url}/d` })).body as Echo).headers;
    expect([a["x-client"], a.accept]).toEqual(["flow", "application/json"]);
    const b = ((await http.execute({ url: `${server.url}/d`, headers: { accept: "text/plain", "x-extra": "1" } })).body as Echo).headers;
    expect([b["x-client"], b.accept, b["x-extra"]]).toEqual(["flow", "text/plain", "1"]);
  });

  it("returns raw text for non-JSON types, null for empty bodies and 204/205, and non-2xx as ok false", async () => {
    const http = createHttpTool();
    const text = await http.execute({ url: `${server.url}/text` });
    expect(text).toMatchObject({ ok: true, body: "plain words" });
    expect(text.headers["x-trace"]).toBe("t-1");
    expect((await http.execute({ url: `${server.url}/no-content`, method: "DELETE" })).body).toBeNull();
    expect(await http.execute({ url: `${server.url}/reset`, method: "POST" })).toMatchObject({ status: 205, body: null });
    expect((await http.execute({ url: `${server.url}/empty` })).body).toBeNull();
    expect(await http.execute({ url: `${server.url}/problem` })).toMatchObject({ ok: false, status: 404, statusText: "Not Found", body: { title: "missing" } });
    const options = await http.execute({ url: `${server.url}/o`, method: "OPTIONS" });
    expect((options.body as Echo).method).toBe("OPTIONS");
  });

  it("truncates a body over maxOutputBytes to text", async () => {
    const res = await createHttpTool().execute({ url: `${server.url}/big` }, { maxOutputBytes: 1000 });
    expect(typeof res.body).toBe("string");
    expect(Buffer.byteLength(res.body as string)).toBeLessThanOrEqual(1000);
    expect(res.body as string).toMatch(/^\{"data":"zzz/);
  });

  it("fails with TOOL_TIMEOUT past timeoutMs, and TOOL_HTTP_FAILED without a server", async () => {
    const http = createHttpTool();
    const slow = await http.execute({ url: `${server.url}/slow`, timeoutMs: 100 }).catch((e: unknown) => e);
    expect(isFlowError(slow, "TOOL_TIMEOUT")).toBe(true);
    const ctxTimeout = await http.execute({ url: `${server.url}/slow` }, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(isFlowError(ctxTimeout, "TOOL_TIMEOUT")).toBe(true);
    const closed = await startTestServer();
    await closed.close();
    const refused = await http.execute({ url: `${closed.url}/x` }).catch((e: unknown) => e);
    expect(isFlowError(refused, "TOOL_HTTP_FAILED")).toBe(true);
  });

  it("rejects a missing or non-http URL, an unknown method and a non-positive timeout before sending", async () => {
    const http = createHttpTool();
    for (const input of [{}, { url: "ftp://example.com/x" }, { url: "not a url" }, { url: `${server.url}/x`, method: "TRACE" }, { url: `${server.url}/x`, timeoutMs: 0 }, { url: `${server.url}/x`, timeoutMs: 1.5 }]) {
      const error = await http.execute(input as never).catch((e: unknown) => e);
      expect(isFlowError(error, "TOOL_INPUT_INVALID"), JSON.stringify(input)).toBe(true);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("uses an injected fetch", async () => {
    const seen: string[] = [];
    const http = createHttpTool({ fetch: async (input, init) => (seen.push(`${init?.method} ${String(input)}`), new Response(JSON.stringify({ via: "injected" }), { headers: { "content-type": "application/json" } })) });
    expect((await http.execute({ url: "https://api.example.com/v1" })).body).toEqual({ via: "injected" });
    expect(seen).toEqual(["GET https://api.example.com/v1"]);
  });
});
