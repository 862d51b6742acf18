import { describe, expect, it } from "vitest";
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import { runBulk } from "../components/bulk-action.js";
import { connectionLabel } from "../components/connection-status.js";
import { bulkApplies, runDurationMs, startedByLabel } from "./run-facts.js";
import { EMPTY_SELECTION, keepShown, toggleAll, toggleSelection } from "./run-selection.js";
import { isFiltered, readRunsFilter, runMatcher, runsFilterParams } from "./runs-filter.js";

const row = (runId: string, status: GatewayRunSummaryRow["status"], workflowKey: string, input: unknown): GatewayRunSummaryRow => ({
  runId,
  workflowKey,
  workflowName: workflowKey,
  owner: null,
  status,
  parentRunId: null,
  nextRunId: null,
  error: null,
  triggeredBy: null,
  startedBy: null,
  annotations: {},
  input,
  createdAtMs: 0,
  updatedAtMs: 0,
  finishedAtMs: null,
});

const rows = [
  row("r-1a", "running", "release", { service: "payments-api", shards: 4 }),
  row("r-2b", "waiting-approval", "release", { service: "search", shards: 12 }),
  row("r-3c", "failed", "hello", { name: "Ada Lovelace" }),
  row("r-4d", "finished", "pipeline", { tasks: 100, label: { team: "Data" } }),
];
const ids = (f: Parameters<typeof runMatcher>[0]) => rows.filter(runMatcher(f)).map((r) => r.runId);

describe("runs list filter (URL state)", () => {
  it("reads statuses, workflow and search from the query string, ignoring what it does not know", () => {
    expect(readRunsFilter({ status: "failed,waiting,bogus,failed", workflow: " release ", q: "ada" })).toEqual({ statuses: ["failed", "waiting"], workflow: "release", q: "ada" });
    expect(readRunsFilter({})).toEqual({ statuses: [], workflow: null, q: "" });
    expect(readRunsFilter({ status: ["paused", "failed"] }).statuses).toEqual(["paused"]);
  });

  it("writes an empty filter as no parameters, and round-trips a full one", () => {
    expect(runsFilterParams(readRunsFilter({}))).toEqual({ status: undefined, workflow: undefined, q: undefined });
    const f = { statuses: ["running" as const, "waiting" as const], workflow: "release", q: "pay ments" };
    const params = runsFilterParams(f);
    expect(params).toEqual({ status: "running,waiting", workflow: "release", q: "pay ments" });
    expect(readRunsFilter(params)).toEqual(f);
    expect(isFiltered(readRunsFilter({}))).toBe(false);
    expect(isFiltered(readRunsFilter({ q: "x" }))).toBe(true);
  });

  it("matches statuses (waiting covers every waiting-*), workflow, and every search word in run id or input text", () => {
    expect(ids({ statuses: ["waiting", "failed"], workflow: null, q: "" })).toEqual(["r-2b", "r-3c"]);
    expect(ids({ statuses: [], workflow: "release", q: "" })).toEqual(["r-1a", "r-2b"]);
    expect(ids({ statuses: [], workflow: null, q: "R-3C" })).toEqual(["r-3c"]);
    expect(ids({ statuses: [], workflow: null, q: "lovelace" })).toEqual(["r-3c"]);
    // Nested input values and keys, numbers, several words (all must occur).
    expect(ids({ statuses: [], workflow: null, q: "team data" })).toEqual(["r-4d"]);
    expect(ids({ statuses: [], workflow: null, q: "12" })).toEqual(["r-2b"]);
    expect(ids({ statuses: [], workflow: null, q: "payments search" })).toEqual([]);
    expect(ids({ statuses: ["running"], workflow: "release", q: "search" })).toEqual([]);
  });

  it("matches the search as a phrase inside one field, never words spread over the id and the input", () => {
    const people = [row("run-2", "finished", "hello", { name: "Ada 0" }), row("run-7", "finished", "hello", { name: "Ada  2", note: "x" })];
    const found = (q: string) => people.filter(runMatcher({ statuses: [], workflow: null, q })).map((r) => r.runId);
    expect(found("Ada 2")).toEqual(["run-7"]);
    expect(found("ada")).toEqual(["run-2", "run-7"]);
    expect(found("name ada 0")).toEqual(["run-2"]);
    expect(found("2 ada")).toEqual([]);
    expect(found("ada 0 note")).toEqual([]);
  });
});

describe("row selection", () => {
  const order = ["a", "b", "c", "d", "e"];
  it("toggles one row, then a shift-click sets the range from the anchor to the clicked row's new state", () => {
    let sel = toggleSelection(EMPTY_SELECTION, order, "b", false);
    sel = toggleSelection(sel, order, "d", true);
    expect([...sel.ids].sort()).toEqual(["b", "c", "d"]);
    sel = toggleSelection(sel, order, "c", false); // c off, anchor c
    sel = toggleSelection(sel, order, "a", true); // a was off: a..c on
    expect([...sel.ids].sort()).toEqual(["a", "b", "c", "d"]);
    sel = toggleSelection(sel, order, "b", false); // b off, anchor b
    sel = toggleSelection(sel, order, "d", true); // d was on: b..d off
    expect([...sel.ids].sort()).toEqual(["a"]);
  });

  it("selects all shown rows or clears them, and drops rows a new filter hides", () => {
    let sel = toggleAll(EMPTY_SELECTION, order);
    expect(sel.ids.size).toBe(5);
    expect(toggleAll(sel, order).ids.size).toBe(0);
    sel = keepShown(sel, ["b", "e"]);
    expect([...sel.ids]).toEqual(["b", "e"]);
  });
});

describe("bulk actions", () => {
  it("runs every item a few at a time, reports progress, and summarises successes and failures", async () => {
    let inFlight = 0;
    let peak = 0;
    const progress: number[] = [];
    const summary = await runBulk(
      ["a", "b", "c", "d", "e", "f", "g"],
      async (id) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await Promise.resolve();
        inFlight--;
        if (id === "c" || id === "f") throw Object.assign(new Error(`Run ${id} is finished`), { code: "INVALID_TRANSITION" });
      },
      { concurrency: 3, onProgress: (p) => progress.push(p.done) },
    );
    expect(peak).toBe(3);
    expect(summary.ok.sort()).toEqual(["a", "b", "d", "e", "g"]);
    expect(summary.failed).toEqual([
      { id: "c", message: "Run c is finished", code: "INVALID_TRANSITION" },
      { id: "f", message: "Run f is finished", code: "INVALID_TRANSITION" },
    ]);
    expect(progress.at(-1)).toBe(7);
  });

  it("stops sending when aborted; the rest are skipped", async () => {
    const stop = new AbortController();
    const summary = await runBulk(["a", "b", "c", "d"], async (id) => void (id === "b" && stop.abort()), { concurrency: 1, signal: stop.signal });
    expect(summary).toEqual({ ok: ["a", "b"], failed: [], skipped: ["c", "d"] });
  });
});

describe("what a row says", () => {
  it("who started a run, how long it ran (live until it ends), and which bulk actions apply", () => {
    expect(startedByLabel({ triggeredBy: "cron:nightly", startedBy: { harness: "cli" } })).toBe("cron:nightly");
    expect(startedByLabel({ triggeredBy: null, startedBy: { harness: "claude-code", sessionId: "s-1" } })).toBe("claude-code (s-1)");
    expect(startedByLabel({ triggeredBy: null, startedBy: null })).toBeNull();
    const running = { status: "running" as const, createdAtMs: 1000, updatedAtMs: 1500, finishedAtMs: null };
    expect(runDurationMs(running, 4000)).toBe(3000);
    expect(runDurationMs({ ...running, status: "finished", finishedAtMs: 2500 }, 9999)).toBe(1500);
    expect(runDurationMs({ ...running, status: "cancelled" }, 9999)).toBe(500);
    expect(["running", "waiting-event", "paused", "finished"].map((status) => bulkApplies("cancel", { status: status as "running" }))).toEqual([true, true, true, false]);
    expect(["paused", "failed", "running", "cancelled"].map((status) => bulkApplies("resume", { status: status as "running" }))).toEqual([true, true, false, false]);
  });

  it("a stream connecting again after it was online reads as reconnecting", () => {
    expect(connectionLabel("connecting", false)).toBe("connecting");
    expect(connectionLabel("connecting", true)).toBe("reconnecting");
    expect(connectionLabel("offline", true)).toBe("offline");
  });
});
