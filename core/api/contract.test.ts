/**
 * The contract is what the server mounts and what the docs say: every route of `API_ROUTES`
 * answers on the domain handler with its declared scope, and docs/hosting.md's route table is
 * the generated one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_ROUTES, type ApiRoute, routeLabel, routeScope, routeTable, routeUrl } from "./contract.js";
import { createDomainHandler } from "./handler.js";
import { LocalGatewayHost } from "./local-host.js";

describe("the wire contract", () => {
  it("is mounted: each route answers FORBIDDEN for a caller without its scope, naming that scope", async () => {
    const api = createDomainHandler({ host: new LocalGatewayHost(), authenticate: async () => ({ role: "nobody", scopes: [], triggeredBy: "user:nobody" }) });
    const answers: Array<[string, number, unknown]> = [];
    for (const route of Object.values(API_ROUTES) as ApiRoute[]) {
      const params = Object.fromEntries([...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => [m[1]!, "x"]));
      const init = route.verb === "POST" ? { method: "POST", body: "{}", headers: { "content-type": "application/json" } } : { method: route.verb };
      const res = await api.fetch(new Request(`http://flow${routeUrl(route, params)}`, init));
      const body = (await res.json()) as { error: { code: string; details: { requiredScope: string } } };
      answers.push([routeLabel(route), res.status, body.error.details.requiredScope]);
    }
    expect(answers).toEqual((Object.values(API_ROUTES) as ApiRoute[]).map((r) => [routeLabel(r), 403, routeScope(r)]));
  });

  it("is the route table of docs/hosting.md", () => {
    const docs = readFileSync(new URL("../../docs/hosting.md", import.meta.url), "utf8");
    expect(docs).toContain(`-->\n\n${routeTable()}\n\n<!-- routes:end -->`);
  });

  it("fills path parameters and the query, leaving unset values out", () => {
    expect(routeUrl(API_ROUTES.getNodeOutput, { runId: "r/1", nodeId: "a b" }, { iteration: 2 })).toBe("/v1/api/runs/r%2F1/nodes/a%20b/output?iteration=2");
    expect(routeUrl(API_ROUTES.getRunSummary, { runId: "r1" })).toBe("/v1/api/runs/r1?view=summary");
    expect(routeUrl(API_ROUTES.listRuns, {}, { limit: undefined, status: "failed" })).toBe("/v1/api/runs?status=failed");
  });
});
