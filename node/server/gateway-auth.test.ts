/**
 * The Gateway's auth modes over real HTTP (fetch) and WebSocket (ws), with JWTs minted by
 * jose: each rule of SPEC.md's auth table refuses with its code and status, and a refused
 * call stores nothing.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FrameClient, rpc, startTestGateway, type TestGateway } from "./gateway-testing.js";

const HOUR = 3_600_000;
const now = Date.now();

async function runCount(t: TestGateway): Promise<number> {
  const [row] = await t.gateway.host.db.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM _flow_runs`);
  return Number(row!.n);
}

async function storedAuth(t: TestGateway, runId: string): Promise<Record<string, unknown>> {
  const [row] = await t.gateway.host.db.store.query<{ auth_json: string }>(`SELECT auth_json FROM _flow_runs WHERE run_id = ?`, [runId]);
  return JSON.parse(row!.auth_json) as Record<string, unknown>;
}

describe("token mode", () => {
  let t: TestGateway;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  beforeAll(async () => {
    t = await startTestGateway({
      auth: {
        mode: "token",
        allowedOrigins: ["https://console.example.com"],
        tokens: {
          reader: { role: "viewer", scopes: ["run:read"], userId: "rita" },
          admin: { role: "operator", scopes: ["*"], userId: "ana", tokenId: "t-ana" },
          old: { role: "operator", scopes: ["*"], tokenId: "t-old", expiresAtMs: now - HOUR },
          gone: { role: "operator", scopes: ["*"], tokenId: "t-gone", revokedAtMs: now - HOUR, expiresAtMs: now + HOUR },
        },
      },
    });
  });
  afterAll(() => t.gateway.close());

  it("answers /health without a token", async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ protocol: 1, features: ["streaming", "runs"] });
  });

  it("refuses a missing, unknown, expired or revoked token with 401 and stores nothing", async () => {
    const before = await runCount(t);
    for (const [headers, reason] of [[{}, "missing"], [bearer("nope"), "unknown"], [bearer("old"), "expired"], [bearer("gone"), "revoked"]] as const) {
      const { status, body } = await rpc(t.url, "launchRun", { workflow: "greet", input: { name: "x" } }, headers);
      expect(status, reason).toBe(401);
      expect(body.error).toMatchObject({ code: "UNAUTHORIZED", details: { reason } });
    }
    expect((await rpc(t.url, "launchRun", { workflow: "greet", input: {} }, bearer("old"))).body.error.refresh).toBe(true);
    expect(await runCount(t)).toBe(before);
  });

  it("answers 403 with requiredScope when the token lacks the method's scope, and stores nothing", async () => {
    const before = await runCount(t);
    expect((await rpc(t.url, "listRuns", {}, bearer("reader"))).status).toBe(200);
    const { status, body } = await rpc(t.url, "launchRun", { workflow: "greet", input: {} }, bearer("reader"));
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: "FORBIDDEN", requiredScope: "run:write" });
    expect(await runCount(t)).toBe(before);
  });

  it("gives a run launched with a grant ctx.auth from it", async () => {
    const { status, body } = await rpc(t.url, "launchRun", { workflow: "greet", input: { name: "ana" } }, bearer("admin"));
    expect(status).toBe(200);
    expect(await storedAuth(t, body.result.runId)).toMatchObject({ triggeredBy: "user:ana", role: "operator", scopes: ["*"] });
  });

  it("refuses a browser Origin outside allowedOrigins, on HTTP and on upgrades alike", async () => {
    const denied = await fetch(`${t.url}/v1/rpc/listRuns`, { method: "POST", headers: { ...bearer("admin"), origin: "https://evil.example.com" }, body: "{}" });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe("ORIGIN_NOT_ALLOWED");
    const allowed = await fetch(`${t.url}/v1/rpc/listRuns`, { method: "POST", headers: { ...bearer("admin"), origin: "https://console.example.com" }, body: "{}" });
    expect(allowed.status).toBe(200);
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(t.wsUrl, { headers: { origin: "https://evil.example.com" } });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(403);
  });

  it("authenticates a WebSocket by the token of its connect frame, and closes it on a bad one", async () => {
    const good = await FrameClient.open(t.wsUrl);
    const hello = await good.connect({ token: "admin", client: { id: "test", version: "1" } });
    expect(hello).toMatchObject({ type: "connected", protocol: 1, identity: { userId: "ana", role: "operator", scopes: ["*"] }, heartbeatMs: 15000 });
    const bad = await FrameClient.open(t.wsUrl);
    const refused = await bad.connect({ token: "old" });
    expect(refused).toMatchObject({ type: "error", error: { code: "UNAUTHORIZED", refresh: true } });
    expect(await bad.closed()).toBe(1008);
    const reader = await FrameClient.open(t.wsUrl);
    await reader.connect({ token: "reader" });
    expect((await reader.request("cancelRun", { runId: "x" })).error).toMatchObject({ code: "FORBIDDEN", requiredScope: "run:write" });
  });
});

describe("jwt mode", () => {
  const secret = "jwt-shared-secret-with-enough-bytes";
  const iss = "https://id.example.com";
  const aud = "flow";
  let t: TestGateway;
  let strict: TestGateway;
  const mint = (claims: Record<string, unknown>, opts: { key?: string; alg?: string; iss?: string; aud?: string | string[]; exp?: number; nbf?: number } = {}) => {
    let jwt = new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? "HS256" }).setIssuer(opts.iss ?? iss).setAudience(opts.aud ?? aud).setSubject("sam").setIssuedAt();
    jwt = jwt.setExpirationTime(opts.exp ?? Math.floor(now / 1000) + 3600);
    if (opts.nbf !== undefined) jwt = jwt.setNotBefore(opts.nbf);
    return jwt.sign(new TextEncoder().encode(opts.key ?? secret));
  };
  const call = async (token: string, method = "listRuns", params: unknown = {}, g = t) => rpc(g.url, method, params, { authorization: `Bearer ${token}` });
  beforeAll(async () => {
    t = await startTestGateway({ auth: { mode: "jwt", issuer: iss, audience: [aud, "other"], secret } });
    strict = await startTestGateway({ auth: { mode: "jwt", issuer: iss, audience: aud, secret, clockSkewSeconds: -5, scopesClaim: "perms", roleClaim: "kind", defaultScopes: ["run:read"] } });
  });
  afterAll(async () => {
    await t.gateway.close();
    await strict.gateway.close();
  });

  it("accepts an HS256 token and reads scopes from an array or a space or comma separated string", async () => {
    expect((await call(await mint({ scope: ["run:read"] }))).status).toBe(200);
    expect((await call(await mint({ scope: "run:read run:write", role: "dev" }), "launchRun", { workflow: "greet", input: {} })).status).toBe(200);
    const launched = await call(await mint({ scope: "run:read,run:write" }), "launchRun", { workflow: "greet", input: {} });
    expect(launched.status).toBe(200);
    expect(await storedAuth(t, launched.body.result.runId)).toMatchObject({ triggeredBy: "user:sam", role: "operator", scopes: ["run:read", "run:write"] });
  });

  it("refuses a forged signature, a wrong iss or aud, an expired token, nbf in the future, alg none and other algorithms", async () => {
    const before = await runCount(t);
    const s = Math.floor(now / 1000);
    const unsigned = (payload: object) => `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.`;
    const cases: Array<[string, string, string]> = [
      ["forged", await mint({ scope: "*" }, { key: "another-secret-of-enough-length!!" }), "signature"],
      ["wrong iss", await mint({ scope: "*" }, { iss: "https://evil.example.com" }), "claim"],
      ["wrong aud", await mint({ scope: "*" }, { aud: "someone-else" }), "claim"],
      ["expired beyond skew", await mint({ scope: "*" }, { exp: s - 120 }), "expired"],
      ["nbf beyond skew", await mint({ scope: "*" }, { nbf: s + 120 }), "claim"],
      ["alg none", unsigned({ iss, aud, sub: "sam", scope: "*", exp: s + 3600 }), "algorithm"],
      ["HS512", await mint({ scope: "*" }, { alg: "HS512" }), "algorithm"],
    ];
    for (const [name, token, reason] of cases) {
      const { status, body } = await call(token, "launchRun", { workflow: "greet", input: {} });
      expect(status, name).toBe(401);
      expect(body.error, name).toMatchObject({ code: "UNAUTHORIZED", details: { reason } });
    }
    expect(await runCount(t)).toBe(before);
  });

  it("allows 60 s of clock skew by default, and none when clockSkewSeconds is negative", async () => {
    const s = Math.floor(now / 1000);
    expect((await call(await mint({ scope: "*" }, { exp: s - 30 }))).status).toBe(200);
    expect((await call(await mint({ scope: "*" }, { nbf: s + 30 }))).status).toBe(200);
    const late = await call(await mint({ perms: "*" }, { exp: s - 30 }), "listRuns", {}, strict);
    expect(late.status).toBe(401);
    expect(late.body.error.details.reason).toBe("expired");
  });

  it("uses the configured claims and default scopes", async () => {
    const token = await mint({ kind: "auditor" });
    expect((await call(token, "listRuns", {}, strict)).status).toBe(200);
    const denied = await call(token, "launchRun", { workflow: "greet", input: {} }, strict);
    expect(denied.status).toBe(403);
    expect(denied.body.error.requiredScope).toBe("run:write");
    const ws = await FrameClient.open(strict.wsUrl);
    expect((await ws.connect({ token })).identity).toMatchObject({ role: "auditor", scopes: ["run:read"], userId: "sam" });
  });
});

describe("trusted-proxy mode", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ auth: { mode: "trusted-proxy" } });
  });
  afterAll(() => t.gateway.close());

  it("refuses a request without the user header", async () => {
    const { status, body } = await rpc(t.url, "listRuns", {});
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHORIZED");
  });

  it("reads user, scopes and role from the proxy's headers, with default role and scopes", async () => {
    const viewer = { "x-user-id": "vic", "x-user-scopes": "run:read", "x-user-role": "viewer" };
    expect((await rpc(t.url, "listRuns", {}, viewer)).status).toBe(200);
    expect((await rpc(t.url, "launchRun", { workflow: "greet", input: {} }, viewer)).body.error).toMatchObject({ code: "FORBIDDEN", requiredScope: "run:write" });
    const { body } = await rpc(t.url, "launchRun", { workflow: "greet", input: {} }, { "x-user-id": "olga" });
    expect(await storedAuth(t, body.result.runId)).toMatchObject({ triggeredBy: "user:olga", role: "operator", scopes: ["*"] });
    const ws = await FrameClient.open(t.wsUrl, { "x-user-id": "wes", "x-user-role": "dev", "x-user-scopes": "run:read, run:write" });
    expect((await ws.connect()).identity).toEqual({ userId: "wes", role: "dev", scopes: ["run:read", "run:write"], triggeredBy: "user:wes" });
  });
});
