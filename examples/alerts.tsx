/**
 * Alerts on slow tasks (docs/alerts.md): a nightly search-index build whose crawl sometimes
 * drags. The store's alert policy routes every alert to the search on-call with a runbook;
 * a crawl running longer than `slow` notifies (POSTs the alert to `$FLOW_ALERT_WEBHOOK`, or only
 * records it when that is not set), past `needs-a-look` it asks an operator (a pending
 * approval, listed by `flow approvals`), and past `stuck` the run pauses once the crawl
 * returns, so nothing is published from a crawl someone should look at first.
 *
 * The thresholds are tiny so that the example shows them in a second; use minutes in production.
 *
 *   npx flow up examples/alerts.tsx --input '{"site":"docs","crawlMs":50}'     # fast: no alerts
 *   npx flow up examples/alerts.tsx --input '{"site":"docs","crawlMs":1200}'   # three alerts, then paused
 *   npx flow approvals --db .flow/examples/alerts.db                             # alert:needs-a-look:crawl
 *   npx flow up examples/alerts.tsx --run-id <id> --resume                       # index and publish
 *
 * The store is `.flow/examples/alerts.db` (or `$FLOW_EXAMPLE_DB`).
 */
import { z } from "zod";
import { createFlow } from "durable-flow";
import type { FlowAlertPolicy, FlowApi } from "durable-flow";

export const schemas = {
  input: z.object({
    site: z.string(),
    /** How long the crawl takes (it stands in for a real crawler). */
    crawlMs: z.number().int().nonnegative(),
  }),
  crawl: z.object({ pages: z.number().int() }),
  index: z.object({ terms: z.number().int() }),
  output: z.object({ site: z.string(), pages: z.number().int(), terms: z.number().int() }),
};

/** Who gets the alerts of this store's workflows, and what each rule does. */
export function alertPolicy(webhook = process.env.FLOW_ALERT_WEBHOOK): FlowAlertPolicy {
  return {
    defaults: { owner: "search-oncall", severity: "warning", runbook: "https://wiki.example.com/runbooks/search-index", labels: { team: "search" } },
    rules: {
      slow: { afterMs: 200, reaction: "notify" },
      "needs-a-look": { afterMs: 500, severity: "critical", reaction: "ask-operator" },
      stuck: { afterMs: 900, severity: "critical", reaction: "pause" },
    },
    reactions: {
      notify: webhook ? { kind: "deliver", destination: webhook } : { kind: "emit-only" },
      "ask-operator": { kind: "open-approval" },
    },
  };
}

/** The index build on an api (the default export uses the example's own store and policy). */
export function searchIndex(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, outputs } = api;
  return flow((ctx) => (
    <Workflow name="search-index">
      <Task id="crawl" output={outputs.crawl} timeoutMs={60_000}>
        {(task) =>
          new Promise((resolve, reject) => {
            const done = setTimeout(() => resolve({ pages: 120 }), ctx.input.crawlMs);
            task.signal.addEventListener("abort", () => (clearTimeout(done), reject(task.signal.reason)));
          })
        }
      </Task>
      <Task id="index" output={outputs.index}>
        {() => ({ terms: (ctx.outputMaybe(outputs.crawl, { nodeId: "crawl" })?.pages ?? 0) * 37 })}
      </Task>
      <Task id="publish" output={outputs.output}>
        {() => ({ site: ctx.input.site, pages: ctx.output(outputs.crawl, { nodeId: "crawl" }).pages, terms: ctx.output(outputs.index, { nodeId: "index" }).terms })}
      </Task>
    </Workflow>
  ));
}

export const api = createFlow(schemas, { dbPath: process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/alerts.db", alertPolicy: alertPolicy() });
export default searchIndex(api);
