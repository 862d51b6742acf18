import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkGateway, normalizeGatewayUrl } from "./check-gateway.js";

// A loopback server speaking the Gateway's /health and runs-list answers, with a token; and one
// that is some other web server.
let gateway: Server;
let other: Server;
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
beforeAll(async () => {
  gateway = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/health") return void res.end(JSON.stringify({ ok: true, status: "ok", protocol: 1 }));
    if (req.headers.authorization !== "Bearer s3cret") return void res.writeHead(401).end(JSON.stringify({ ok: false, error: { code: "UNAUTHORIZED", message: "no" } }));
    res.end(JSON.stringify({ ok: true, result: { runs: [], nextCursor: null } }));
  });
  other = createServer((_req, res) => void res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>"));
  await Promise.all([gateway, other].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
});
afterAll(() => {
  gateway.close();
  other.close();
});

describe("Add a Gateway: checking an address before saving it", () => {
  it("reads what people type as a Gateway URL", () => {
    expect(normalizeGatewayUrl("build-box:7331/")).toBe("http://build-box:7331");
    expect(normalizeGatewayUrl(" https://flow.example.com/team/ ")).toBe("https://flow.example.com/team");
    expect(normalizeGatewayUrl("")).toBeNull();
    expect(normalizeGatewayUrl("ftp://x")).toBeNull();
  });

  it("accepts a Gateway that answers /health and takes the token, and names the workspace", async () => {
    const url = urlOf(gateway);
    const check = await checkGateway({ url: url.slice("http://".length), token: "s3cret", name: "" });
    expect(check).toEqual({ ok: true, workspace: { id: `gateway:${url}`, kind: "gateway", name: new URL(url).host, url, token: "s3cret" } });
  });

  it("says which field is wrong: a refused or missing token, a server that is not a Gateway, a closed port", async () => {
    expect(await checkGateway({ url: urlOf(gateway), token: "nope" })).toMatchObject({ ok: false, field: "token", message: expect.stringContaining("refused this token (HTTP 401)") });
    expect(await checkGateway({ url: urlOf(gateway) })).toMatchObject({ ok: false, field: "token", message: expect.stringContaining("needs a token") });
    expect(await checkGateway({ url: urlOf(other) })).toMatchObject({ ok: false, field: "url", message: expect.stringContaining("not as a Flow Gateway (GET /health gave HTTP 404)") });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await checkGateway({ url: `127.0.0.1:${port}` })).toMatchObject({ ok: false, field: "url", message: expect.stringContaining(`No answer from http://127.0.0.1:${port}`) });
    expect(await checkGateway({ url: "   " })).toMatchObject({ ok: false, field: "url" });
  });
});
