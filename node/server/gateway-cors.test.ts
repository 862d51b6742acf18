/**
 * CORS for `allowedOrigins` over real HTTP: a listed origin's preflight is answered without a
 * token and its answers (errors included) carry the headers a browser needs to read them; other
 * origins get no CORS headers (and the Origin check refuses them); a Gateway without a list
 * sends none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./gateway-testing.js";

const APP = "https://app.example.com";

describe("CORS for listed origins", () => {
  let listed: TestGateway;
  let open: TestGateway;
  beforeAll(async () => {
    listed = await startTestGateway({ auth: { mode: "token", allowedOrigins: [APP], tokens: { tok: { role: "operator", scopes: ["*"] } } } });
    open = await startTestGateway({});
  });
  afterAll(async () => {
    await listed.gateway.close();
    await open.gateway.close();
  });

  it("answers a listed origin's preflight, and lets it read answers and errors", async () => {
    const pre = await fetch(`${listed.url}/v1/api/runs`, { method: "OPTIONS", headers: { origin: APP, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    expect(pre.headers.get("access-control-allow-headers")).toBe("authorization, content-type");

    const ok = await fetch(`${listed.url}/v1/api/runs`, { headers: { origin: APP, authorization: "Bearer tok" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(ok.headers.get("vary")).toContain("origin");

    const unauthorized = await fetch(`${listed.url}/v1/api/runs`, { headers: { origin: APP } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("gives other origins no CORS headers, and a Gateway without a list none at all", async () => {
    const evilPre = await fetch(`${listed.url}/v1/api/runs`, { method: "OPTIONS", headers: { origin: "https://evil.example.com", "access-control-request-method": "GET" } });
    expect(evilPre.status).toBe(403);
    expect(evilPre.headers.get("access-control-allow-origin")).toBeNull();
    const openRes = await fetch(`${open.url}/v1/api/runs`, { headers: { origin: APP } });
    expect(openRes.status).toBe(200);
    expect(openRes.headers.get("access-control-allow-origin")).toBeNull();
  });
});
