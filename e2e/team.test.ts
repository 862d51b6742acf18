/**
 * Issue #14 in browsers: a team workspace (team Gateway over PostgreSQL, the Electric stand-in
 * behind its shape proxy, the built app) opened by three people in their own browser contexts,
 * each signed in with their token: ana (owner) launches a release from the form, bea (approve)
 * sees it appear and move live in her list and approves it in her inbox, ana sees it finish;
 * cy (no member) sees a "not a member" state and nothing else, and crafted shape requests from
 * a page are refused. Then a second Gateway of the workspace is SIGKILLed mid-run and the
 * fixture's Gateway finishes the run while both browsers watch. A member offline (writes
 * queued, the workspace reopened from this browser) is e2e/team-offline.test.ts.
 */
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Browser, Page } from "playwright-core";
import { spawnTeamGateway, type TeamFixture } from "./electric/team-fixture.js";
import { criticalA11y, shootThemes } from "./support/screens.js";
import { signIn, type SignedIn, teamBrowsers } from "./support/team-app.js";

const row = (page: Page, runId: string, status?: string) => page.locator(`[data-testid="run-row"][data-run-id="${runId}"]${status ? `[data-status="${status}"]` : ""}`);

describe("a team workspace in three browsers (issue #14)", () => {
  // Provoked on purpose (allowed by teamBrowsers): dan's refused launch and cy's refused reads
  // (403), cy's crafted shape requests (400, 404).
  const shared = teamBrowsers();
  let team: TeamFixture;
  let browser: Browser;
  let ana: SignedIn;
  let bea: SignedIn;

  beforeAll(async () => {
    ({ team, browser } = shared);
    [ana, bea] = await Promise.all([signIn(browser, team.url, "ana", "/launch/release"), signIn(browser, team.url, "bea", "/runs")]);
  }, 60_000);

  it("shows a run ana launched live in bea's list, bea approves it in her inbox, and ana sees it finish", { timeout: 60_000 }, async () => {
    expect(await ana.page.locator('[data-testid="workspace-switcher"] option:checked').textContent()).toContain("Acme · team");
    expect(await bea.page.locator('[data-testid="team-info"]').textContent()).toContain("approve");
    const form = ana.page.locator('[data-testid="launch-form"]');
    await form.locator('[name="service"]').fill("billing");
    await form.locator('[name="shards"]').fill("2");
    await form.locator('[name="workMs"]').fill("700");
    await ana.page.locator('[data-testid="launch-submit"]').click();
    await ana.page.waitForURL(/\/runs\/[^/]+$/);
    const runId = decodeURIComponent(new URL(ana.page.url()).pathname.split("/").pop()!);

    // bea's list, open before the launch and never reloaded: the row appears and its status moves.
    await row(bea.page, runId, "running").waitFor();
    await row(bea.page, runId, "waiting-approval").waitFor();
    await ana.page.locator('[data-testid="tree-node"][data-node-id="ship"][data-state="waiting-approval"]').waitFor();
    await ana.page.locator('[data-testid="tree-node"][data-node-id="test-1"][data-state="finished"]').waitFor();

    await bea.page.locator('.shell-nav a[href$="/approvals"]').click();
    const item = bea.page.locator(`[data-testid="approval"][data-run-id="${runId}"]`);
    await item.locator('[data-testid="approval-note"]').fill("ship it");
    await item.locator('[data-testid="approve"]').click();
    await ana.page.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
    await ana.page.locator('[data-testid="tree-node"][data-node-id="deploy"][data-state="finished"]').waitFor();
    const [ship] = (await team.call("ana", "GET", `/v1/api/waits?runId=${runId}&nodeId=ship&status=any`)).body.result;
    expect(ship.resolution).toMatchObject({ approved: true, note: "ship it" });
  });

  it("lets dan, who may only read, see the workspace but refuses his launch with the Gateway's reason", { timeout: 30_000 }, async () => {
    const dan = await signIn(browser, team.url, "dan", "/launch/release");
    onTestFinished(() => dan.context.close());
    expect(await dan.page.locator('[data-testid="team-info"]').textContent()).toContain("read");
    await dan.page.locator('[data-testid="launch-form"] [name="service"]').fill("not-allowed");
    await dan.page.locator('[data-testid="launch-submit"]').click();
    await dan.page.getByText(/FORBIDDEN/).first().waitFor();
    const runs = (await team.call("ana", "GET", "/v1/api/runs?limit=100")).body.result.runs as Array<{ input: { service: string } }>;
    expect(runs.some((r) => r.input.service === "not-allowed")).toBe(false);
  });

  it("lets ana, an admin, add a member and change a role in the Members view, live in bea's; screenshots and no critical a11y violations", { timeout: 40_000 }, async () => {
    await Promise.all([ana.page, bea.page].map((p) => p.locator('.shell-nav a[href$="/members"]').click()));
    await ana.page.locator('[data-testid="member-row"][data-user-id="dan"][data-role="read"]').waitFor();
    const add = ana.page.locator('[data-testid="member-add-form"]');
    await add.getByLabel("User id").fill("eve");
    await add.getByLabel("Role").selectOption("launch");
    await ana.page.locator('[data-testid="member-add"]').click();
    await ana.page.getByLabel("Role of dan").selectOption("approve");
    // bea (not an admin) sees both changes arrive through the members shape, without the form.
    await bea.page.locator('[data-testid="member-row"][data-user-id="eve"][data-role="launch"]').waitFor();
    await bea.page.locator('[data-testid="member-row"][data-user-id="dan"][data-role="approve"]').waitFor();
    expect(await bea.page.locator('[data-testid="member-add-form"], [aria-label^="Remove"]').count()).toBe(0);
    expect((await team.call("ana", "POST", "/v1/rpc/ext.workspace.members", {})).body.result.map((m: { userId: string; role: string }) => `${m.userId}:${m.role}`).sort()).toEqual(["bea:approve", "dan:approve", "eve:launch"]);

    const shots = [...(await shootThemes(ana.page, "view-team-members"))];
    expect(await criticalA11y(ana.page)).toEqual([]);
    await ana.page.locator('.shell-nav a[href$="/runs"]').click();
    await ana.page.locator('[data-testid="run-row"]').first().waitFor();
    shots.push(...(await shootThemes(ana.page, "view-team-runs")));
    expect(await criticalA11y(ana.page)).toEqual([]);
    expect(shots).toHaveLength(4);
  });

  it("shows cy, who is no member, that he is not one and nothing of the workspace; crafted shape requests are refused", { timeout: 30_000 }, async () => {
    const cy = await signIn(browser, team.url, "cy", "/runs");
    onTestFinished(() => cy.context.close());
    await cy.page.locator('[data-testid="not-a-member"]').getByText("You are not a member of this team workspace").waitFor();
    await shootThemes(cy.page, "view-team-not-member");
    expect(await cy.page.locator('[data-testid="run-row"], [data-testid="approval"], [data-testid="approvals-badge"]').count()).toBe(0);
    expect(await cy.page.locator('.shell-nav a[href$="/members"]').count()).toBe(0);

    // From the page, as a script on it could: with cy's token, and with ana's (a member's).
    const statuses = await cy.page.evaluate(async () => {
      const get = async (path: string, token: string) => {
        const res = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
        return `${res.status} ${((await res.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code ?? ""}`.trim();
      };
      return {
        cyRuns: await get("/sync/acme/runs?offset=-1", "cy"),
        otherTable: await get("/sync/acme/runs?offset=-1&table=_flow_members", "ana"),
        otherWhere: await get("/sync/acme/runs?offset=-1&where=true", "ana"),
        otherParams: await get("/sync/acme/runs?offset=-1&params%5B1%5D=other", "ana"),
        otherWorkspace: await get("/sync/other/runs?offset=-1", "ana"),
        otherShape: await get("/sync/acme/_flow_claims?offset=-1", "ana"),
      };
    });
    expect(statuses).toEqual({
      cyRuns: "403 WORKSPACE_NOT_MEMBER",
      otherTable: "400 SHAPE_PARAM_FORBIDDEN",
      otherWhere: "400 SHAPE_PARAM_FORBIDDEN",
      otherParams: "400 SHAPE_PARAM_FORBIDDEN",
      otherWorkspace: "404 WORKSPACE_NOT_FOUND",
      otherShape: "404 ROUTE_NOT_FOUND",
    });
  });

  it("lets the workspace's other Gateway take over a run whose Gateway was SIGKILLed, while both browsers watch it finish", { timeout: 90_000 }, async () => {
    const second = await spawnTeamGateway(team.storeUrl, team.electric.url);
    onTestFinished(() => second.kill());
    await Promise.all([ana.page, bea.page].map((p) => p.locator('.shell-nav a[href$="/runs"]').click()));
    const launched = await fetch(`${second.url}/v1/api/runs`, {
      method: "POST",
      headers: { authorization: "Bearer ana", "content-type": "application/json" },
      body: JSON.stringify({ workflow: "release", input: { service: "takeover", shards: 1, workMs: 2000 } }),
    });
    const { runId } = ((await launched.json()) as { result: { runId: string } }).result;
    await Promise.all([ana.page, bea.page].map((p) => row(p, runId, "running").waitFor()));
    await second.kill();

    // The fixture's Gateway takes the run over (its cron poll finds the dead Gateway's run); bea's decision goes over HTTP (the first test decides in the inbox).
    await Promise.all([ana.page, bea.page].map((p) => row(p, runId, "waiting-approval").waitFor({ timeout: 45_000 })));
    await team.call("bea", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" });
    await Promise.all([ana.page, bea.page].map((p) => row(p, runId, "finished").waitFor()));
    const { events } = (await team.call("ana", "GET", `/v1/api/runs/${runId}/events?afterSeq=0&limit=500`)).body.result;
    expect(events.find((e: { type: string }) => e.type === "RunResumed")).toMatchObject({ takeover: true, previousStatus: "running" });
  });
});
