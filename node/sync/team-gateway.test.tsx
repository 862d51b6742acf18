/**
 * A team Gateway over the real PostgreSQL, with the Electric stand-in (e2e/electric) behind
 * its shape proxy: membership and roles, the proxy's refusals of crafted requests, a launch
 * seen live through `@electric-sql/client` and confirmed by the txid the write answered, and
 * two members deciding one approval at once.
 */
import { isChangeMessage, type Message, type Row, ShapeStream } from "@electric-sql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../server/gateway-testing.js";
import { WORKSPACE_METHODS, type WorkspaceMethod } from "../../sync/server.js";
import { ELECTRIC_SECRET, startTeamFixture, startTeamGateway, type TeamFixture, type TeamUser } from "../../e2e/electric/team-fixture.js";

let t: TeamFixture;
let url: string;

beforeAll(async () => {
  t = await startTeamFixture();
  url = t.url;
});

afterAll(async () => {
  await t?.close();
});

const call = (...args: Parameters<TeamFixture["call"]>) => t.call(...args);
const launch = (who: TeamUser) => t.launch(who);
type Who = TeamUser;

describe("team Gateway", () => {
  it("serves members the workspace's shapes and refuses non-members, other workspaces, other shapes and crafted params", async () => {
    const ok = await call("bea", "GET", "/sync/acme/runs?offset=-1");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("electric-handle")).toBeTruthy();
    expect(ok.headers.get("electric-schema")).toContain("workspace_id");
    expect(ok.headers.get("content-encoding")).toBeNull();
    expect(ok.headers.get("vary")).toContain("authorization");
    const forwarded = new URL(t.electric.requests.at(-1)!.split(" ")[1]!, "http://x").searchParams;
    expect(forwarded.get("table")).toBe(`${t.schema}._flow_runs`);
    expect(forwarded.get("where")).toBe("workspace_id = $1");
    expect(forwarded.get("params[1]")).toBe("acme");
    expect(forwarded.get("secret")).toBe(ELECTRIC_SECRET);
    expect(forwarded.get("columns")).not.toContain("config_json");

    const refused = async (who: Who | null, path: string) => {
      const r = await call(who, "GET", path);
      return [r.status, r.body?.error?.code];
    };
    expect(await refused(null, "/sync/acme/runs?offset=-1")).toEqual([401, "UNAUTHORIZED"]);
    expect(await refused("cy", "/sync/acme/runs?offset=-1")).toEqual([403, "WORKSPACE_NOT_MEMBER"]);
    expect(await refused("bea", "/sync/other/runs?offset=-1")).toEqual([404, "WORKSPACE_NOT_FOUND"]);
    expect(await refused("bea", "/sync/acme/_flow_runs?offset=-1")).toEqual([404, "ROUTE_NOT_FOUND"]);
    for (const crafted of ["table=_flow_members", "where=true", "params%5B1%5D=other", "columns=auth_json", "secret=x", "replica=full"]) {
      expect(await refused("bea", `/sync/acme/runs?offset=-1&${crafted}`)).toEqual([400, "SHAPE_PARAM_FORBIDDEN"]);
    }
    const before = t.electric.requests.length;
    await call("bea", "GET", "/sync/acme/runs?offset=-1&unknown=1");
    expect(t.electric.requests.slice(before).join()).not.toContain("unknown");

    expect((await call("cy", "POST", "/v1/rpc/ext.workspace.list", {})).body.result).toEqual([]);
    expect((await call("bea", "POST", "/v1/rpc/ext.workspace.list", {})).body.result).toEqual([{ workspaceId: "acme", name: "Acme", role: "approve", userId: "bea", syncPath: "/sync/acme" }]);
    expect((await call("bea", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "cy", role: "admin" })).body.error.code).toBe("FORBIDDEN");
    const members = (await call("bea", "POST", "/v1/rpc/ext.workspace.members", {})).body.result;
    expect(members.map((m: { userId: string; role: string }) => `${m.userId}:${m.role}`).sort()).toEqual(["bea:approve", "dan:read"]);
    // Membership writes answer the txid of the members shape, like every write.
    const added = await call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "eve", role: "read" });
    expect(added.body.result).toMatchObject({ userId: "eve", role: "read", addedBy: "ana", txids: { members: [expect.any(Number)] } });
    expect((await call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "eve", role: "owner" })).body.error.code).toBe("INVALID_ARGUMENT");
    expect((await call("ana", "POST", "/v1/rpc/ext.workspace.removeMember", { userId: "eve" })).body.result).toMatchObject({ removed: true });
  });

  it("answers each workspace method as sync/workspace-methods.ts declares it (strict: a field more or less fails)", async () => {
    const answers: Record<WorkspaceMethod, unknown> = {
      list: (await call("bea", "POST", "/v1/rpc/ext.workspace.list", {})).body.result,
      members: (await call("bea", "POST", "/v1/rpc/ext.workspace.members", {})).body.result,
      addMember: (await call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "fay", role: "launch" })).body.result,
      removeMember: (await call("ana", "POST", "/v1/rpc/ext.workspace.removeMember", { userId: "fay" })).body.result,
    };
    for (const [method, answer] of Object.entries(answers) as [WorkspaceMethod, unknown][]) {
      const schema = WORKSPACE_METHODS[method].result;
      expect(schema.safeParse(answer).error, method).toBeUndefined();
      const one = (Array.isArray(answer) ? answer[0] : answer) as Record<string, unknown>;
      expect(one, method).toBeTruthy();
      const widened = { ...one, undeclared: 1 };
      expect(schema.safeParse(Array.isArray(answer) ? [widened] : widened).success, `${method} with an undeclared field`).toBe(false);
    }
    expect(WORKSPACE_METHODS.addMember.params.safeParse({ userId: "fay", role: "owner" }).success).toBe(false);
  });

  it("streams a launch live through the proxy, and the launch answers the txid that confirms it", async () => {
    const abort = new AbortController();
    const messages: Message<Row>[] = [];
    const stream = new ShapeStream<Row>({ url: `${url}/sync/acme/runs`, headers: { authorization: "Bearer bea" }, signal: abort.signal });
    stream.subscribe((batch) => void messages.push(...batch));
    try {
      await until(() => stream.isUpToDate, Boolean, "the shape to be up to date", 10_000);
      const launched = await launch("ana");
      expect(launched.status).toBe(200);
      const { runId, txids } = launched.body.result;
      expect(txids.runs.length).toBeGreaterThan(0);
      const insert = await until(
        () => messages.find((m) => isChangeMessage(m) && m.value.run_id === runId && m.headers.operation === "insert"),
        Boolean,
        "the launched run in the shape",
        10_000,
      );
      expect(isChangeMessage(insert!) && insert.headers.txids).toEqual(expect.arrayContaining([expect.any(Number)]));
      expect(txids.runs).toContain((insert as { headers: { txids: number[] } }).headers.txids[0]);
      expect((insert as { value: Row }).value.workspace_id).toBe("acme");
      expect((await launch("dan")).body.error.code).toBe("FORBIDDEN");
    } finally {
      abort.abort();
    }
  });

  it("lets the first of two simultaneous decisions win and tells the second what won", async () => {
    const { runId } = (await launch("ana")).body.result;
    await until(() => call("bea", "GET", `/v1/api/approvals?runId=${runId}`), (r) => r.body?.result?.length === 1, "the approval to be pending", 20_000);
    const [a, b] = await Promise.all([
      call("ana", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" }),
      call("bea", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "deny", note: "not today" }),
    ]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(won.status).toBe(200);
    expect(won.body.result.status).toBe("accepted");
    expect(won.body.result.txids.approvals[0]).toEqual(expect.any(Number));
    expect(lost.status).toBe(409);
    expect(lost.body.error.code).toBe("APPROVAL_ALREADY_DECIDED");
    const winner = won === a ? "ana" : "bea";
    expect(lost.body.error.details).toMatchObject({ decidedBy: winner, decision: { approved: winner === "ana" } });
    expect(lost.body.error.message).toContain(`by ${winner} (${winner === "ana" ? "approved" : "denied"})`);
  });

  it("lets a second Gateway join the workspace's database and refuses one started with another workspace id", async () => {
    const second = await startTeamGateway(t.storeUrl, t.electric.url);
    try {
      const { runId } = (await launch("ana")).body.result;
      // The second Gateway knows the members the first added, and serves the same shapes.
      const abort = new AbortController();
      const seen = new Set<unknown>();
      const stream = new ShapeStream<Row>({ url: `${second.url}/sync/acme/runs`, headers: { authorization: "Bearer bea" }, signal: abort.signal });
      stream.subscribe((batch) => batch.forEach((m) => isChangeMessage(m) && seen.add(m.value.run_id)));
      try {
        await until(() => seen.has(runId), Boolean, "the first Gateway's run through the second", 10_000);
      } finally {
        abort.abort();
      }
    } finally {
      await second.gateway.close();
    }
    await expect(startTeamGateway(t.storeUrl, t.electric.url, "other")).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining('already holds team workspace "acme"') });
  });
});
