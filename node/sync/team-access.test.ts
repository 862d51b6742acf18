/**
 * A team Gateway on the real PostgreSQL probed as a non-member, a removed or downgraded member
 * and a member with a narrow token would probe it (issue #25): every way to read a run's events
 * is authorized alike, role changes reach open sockets, members list their workspace, run
 * actions refuse bodies that are not objects, oversized ids never reach the store, `/metrics`
 * needs a reader, and a cron's input is checked when it is stored.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTeamFixture, startTeamGateway, type TeamFixture } from "../../e2e/electric/team-fixture.js";
import { FrameClient, until } from "../server/gateway-testing.js";

let t: TeamFixture;
let wsUrl: string;

beforeAll(async () => {
  t = await startTeamFixture();
  wsUrl = t.url.replace(/^http/, "ws");
});

afterAll(async () => {
  await t?.close();
});

/** A run of `release` parked on its approval (nothing more happens to it until someone decides). */
async function parkedRun(): Promise<string> {
  const { runId } = (await t.launch("ana")).body.result as { runId: string };
  await until(() => t.call("ana", "GET", `/v1/api/runs/${runId}`), (r) => r.body?.result?.status === "waiting-approval", "the run to wait for approval", 20_000);
  return runId;
}

describe("team Gateway access", () => {
  it("refuses a non-member's subscription made in the connect frame, as it refuses a later one", async () => {
    const runId = await parkedRun();
    const cy = await FrameClient.open(wsUrl);
    expect((await cy.connect({ token: "cy", subscribe: [{ runId, afterSeq: 0 }] })).type).toBe("connected");
    const refused = await cy.waitFor((f) => f.type === "error");
    expect(refused.error.code).toBe("FORBIDDEN");
    expect((await cy.request("streamRunEvents", { runId })).error.code).toBe("FORBIDDEN");
    expect(cy.frames.filter((f) => f.event === "run.event")).toEqual([]);
    // A member's connect-time subscription streams the run.
    const dan = await FrameClient.open(wsUrl);
    await dan.connect({ token: "dan", subscribe: [{ runId, afterSeq: 0 }] });
    expect((await dan.waitFor((f) => f.event === "run.event")).payload.type).toBe("RunStarted");
  });

  it("applies a downgrade to the member's next request on an open socket and closes the sockets of changed members within a second", async () => {
    const bea = await FrameClient.open(wsUrl);
    await bea.connect({ token: "bea" });
    expect((await bea.request("listRuns", {})).ok).toBe(true);
    const runId = await parkedRun();
    const dan = await FrameClient.open(wsUrl);
    await dan.connect({ token: "dan", subscribe: [{ runId, afterSeq: 0 }] });
    await dan.waitFor((f) => f.event === "run.event");
    try {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "read" });
      // The next request is checked against the role as it is now: the socket closes instead of launching.
      const runsBefore = (await t.call("ana", "GET", "/v1/api/runs?limit=500")).body.result.length;
      await expect(bea.request("launchRun", { workflow: "release", input: { service: "api", shards: 1, workMs: 0 } })).rejects.toThrow(/socket closed \(4001\)/);
      expect((await t.call("ana", "GET", "/v1/api/runs?limit=500")).body.result.length).toBe(runsBefore);
      const removedAt = Date.now();
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.removeMember", { userId: "dan" });
      await until(() => [bea.closeCode, dan.closeCode], (c) => c.every((x) => x === 4001), "both sockets to be closed with 4001", 5_000).catch((e) => { throw new Error(`${e.message}: ${bea.closeCode} ${dan.closeCode}`); });
      expect(Date.now() - removedAt).toBeLessThan(1_500);
      // dan reconnects as what he is now: no member, so no stream and no reads.
      const again = await FrameClient.open(wsUrl);
      expect((await again.connect({ token: "dan" })).identity.role).toBe("not-a-member");
      expect((await again.request("listRuns", {})).error.code).toBe("FORBIDDEN");
      expect((await again.request("streamRunEvents", { runId })).error.code).toBe("FORBIDDEN");
    } finally {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "approve" });
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "dan", role: "read" });
    }
  });

  it("lets a member whose JWT grants only run:read list the workspace (hosting.md's JWT example)", async () => {
    const secret = "jwt-secret-of-the-test";
    const gw = await startTeamGateway(t.storeUrl, t.electric.url, "acme", { auth: { mode: "jwt", issuer: "https://id.example.com", audience: "flow", secret } });
    try {
      const jwt = async (sub: string) =>
        new SignJWT({ scope: "run:read run:write", role: "dev" })
          .setProtectedHeader({ alg: "HS256" })
          .setIssuer("https://id.example.com")
          .setAudience("flow")
          .setSubject(sub)
          .setExpirationTime("1h")
          .sign(new TextEncoder().encode(secret));
      const list = async (sub: string) =>
        (await fetch(`${gw.url}/v1/rpc/ext.workspace.list`, { method: "POST", headers: { authorization: `Bearer ${await jwt(sub)}`, "content-type": "application/json" }, body: "{}" })).json() as Promise<any>;
      expect((await list("dan")).result).toEqual([{ workspaceId: "acme", name: "Acme", role: "read", userId: "dan", syncPath: "/sync/acme" }]);
      expect((await list("bea")).result).toEqual([{ workspaceId: "acme", name: "Acme", role: "approve", userId: "bea", syncPath: "/sync/acme" }]);
      expect((await list("cy")).result).toEqual([]);
    } finally {
      await gw.gateway.close();
    }
  });

  it("refuses run actions whose body is not a JSON object, and leaves the run as it was", async () => {
    const runId = await parkedRun();
    for (const action of ["cancel", "resume", "pause", "rewind"]) {
      for (const body of ["[]", '"x"', "42", "true", "null"]) {
        const res = await fetch(`${t.url}/v1/api/runs/${runId}/${action}`, { method: "POST", headers: { authorization: "Bearer ana", "content-type": "application/json" }, body });
        expect([action, body, res.status, ((await res.json()) as any).error?.code]).toEqual([action, body, 400, "INVALID_ARGUMENT"]);
      }
    }
    expect((await t.call("ana", "GET", `/v1/api/runs/${runId}`)).body.result.status).toBe("waiting-approval");
    expect((await t.call("ana", "POST", `/v1/api/runs/${runId}/cancel`)).body.result.status).toBe("cancelled");
  });

  it("answers 400 with a code for identifiers over 256 characters and stores nothing", async () => {
    const long = "x".repeat(50_000);
    const runsBefore = (await t.call("ana", "GET", "/v1/api/runs?limit=500")).body.result.length;
    const refused = [
      await t.call("ana", "POST", "/v1/api/runs", { workflow: "release", runId: long, input: { service: "api", shards: 1, workMs: 0 } }),
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: long, role: "read" }),
      await t.call("ana", "POST", "/v1/api/crons", { cronId: long, workflow: "release", schedule: "0 9 * * *", input: { service: "api" } }),
      await t.call("ana", "POST", "/v1/api/signals", { name: "go", runId: long }),
    ];
    for (const r of refused) {
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("INVALID_ARGUMENT");
      expect(r.body.error.message).toMatch(/at most 256|256 character/);
      expect(JSON.stringify(r.body)).not.toContain("index row");
    }
    expect((await t.call("ana", "GET", "/v1/api/runs?limit=500")).body.result.length).toBe(runsBefore);
    expect((await t.call("ana", "POST", "/v1/rpc/ext.workspace.members", {})).body.result.some((m: { userId: string }) => m.userId.length > 256)).toBe(false);
    expect((await t.call("ana", "GET", "/v1/api/crons")).body.result.some((c: { cronId: string }) => c.cronId.length > 256)).toBe(false);
  });

  it("serves /metrics to members and metrics tokens only", async () => {
    expect((await t.call(null, "GET", "/metrics")).status).toBe(401);
    expect((await t.call("cy", "GET", "/metrics")).body.error).toMatchObject({ code: "FORBIDDEN" });
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer dan" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("flow_run_events_total");
  });

  it("refuses a cron whose input the workflow refuses, as launchRun does, and stores none", async () => {
    const bad = { workflow: "release", schedule: "0 9 * * *", input: { service: "", shards: 500 } };
    const launched = await t.call("ana", "POST", "/v1/api/runs", { workflow: "release", input: bad.input });
    expect(launched.body.error.code).toBe("INPUT_INVALID");
    const created = await t.call("ana", "POST", "/v1/api/crons", { ...bad, cronId: "nightly-bad" });
    expect([created.status, created.body.error?.code]).toEqual([400, "INPUT_INVALID"]);
    const good = await t.call("ana", "POST", "/v1/api/crons", { ...bad, cronId: "nightly", input: { service: "api" } });
    expect(good.status).toBe(200);
    // Changing a cron is creating it again under its id: checked the same way, the stored one stays.
    expect((await t.call("ana", "POST", "/v1/api/crons", { ...bad, cronId: "nightly" })).body.error.code).toBe("INPUT_INVALID");
    const crons = (await t.call("ana", "GET", "/v1/api/crons")).body.result as Array<{ cronId: string; input: unknown }>;
    expect(crons.find((c) => c.cronId === "nightly-bad")).toBeUndefined();
    expect(crons.find((c) => c.cronId === "nightly")?.input).toEqual({ service: "api" });
    await t.call("ana", "DELETE", "/v1/api/crons/nightly");
  });
});

describe("concurrent decisions", () => {
  it("answers another member who sends the same decision 409 naming who decided, and the decider's repeat 200 duplicate", async () => {
    const runId = await parkedRun();
    const decide = (who: "ana" | "bea") => t.call(who, "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" });
    const [a, b] = await Promise.all([decide("ana"), decide("bea")]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    const winner = won === a ? "ana" : "bea";
    expect(won.body.result.status).toBe("accepted");
    expect([lost.status, lost.body.error.code]).toEqual([409, "APPROVAL_ALREADY_DECIDED"]);
    expect(lost.body.error.details).toMatchObject({ decidedBy: winner, decision: { approved: true } });
    expect(lost.body.error.message).toContain(`by ${winner} (approved)`);
    const again = await decide(winner);
    expect([again.status, again.body.result.status]).toEqual([200, "duplicate"]);
  });

  it("answers txids only for transactions that changed the shape's table: a lost race carries none", { timeout: 60_000 }, async () => {
    const runIds = await Promise.all(Array.from({ length: 20 }, () => parkedRun()));
    const answers = await Promise.all(
      runIds.map(async (runId) => {
        const decide = () => t.call("bea", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" });
        return Promise.all([decide(), decide()]);
      }),
    );
    for (const pair of answers) {
      const statuses = pair.map((r) => r.body.result.status).sort();
      expect(statuses).toEqual(["accepted", "duplicate"]);
      const won = pair.find((r) => r.body.result.status === "accepted")!;
      const lost = pair.find((r) => r.body.result.status === "duplicate")!;
      expect(won.body.result.txids.approvals[0]).toEqual(expect.any(Number));
      expect(lost.body.result.txids).toBeUndefined();
    }
  });
});
