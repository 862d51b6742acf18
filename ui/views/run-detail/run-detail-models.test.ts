import { describe, expect, it } from "vitest";
import type { GatewayRunEventRow, GatewayRunNode, GatewayRunTreeRow } from "../../../core/data/index.js";
import type { XmlNode } from "../../../core/jsx/host.js";
import { isFolded } from "../../../core/util/index.js";
import { foldAttempts, noAttemptsNote } from "./attempts-model.js";
import { patchLines } from "./patch-model.js";
import { buildTimeline, tickStep } from "./timeline-model.js";
import { buildTree, groupTitle, visibleItems } from "./tree-model.js";
import { whyNot, whyNotRetry } from "./run-status-rules.js";

const el = (tag: string, props: Record<string, string>, ...children: XmlNode[]): XmlNode => ({ kind: "element", tag: `flow:${tag}`, props, children });
const task = (nodeId: string, ordinal: number, iteration = 0) => ({ nodeId, ordinal, iteration, key: `${nodeId}#${iteration}`, runId: "r1", frameNo: 3, outputTable: "t", outputTableName: "t", needsApproval: false, skipIf: false, retries: 0, timeoutMs: null, heartbeatTimeoutMs: null, continueOnFail: false }) as GatewayRunTreeRow;
const attempt = (nodeId: string, n: number, state: string, startedAtMs: number, finishedAtMs: number | null) => ({ nodeId, iteration: 0, attempt: n, state, startedAtMs, finishedAtMs, error: state === "failed" ? { code: "TASK_FAILED", message: "boom" } : null, meta: null, vcsPointer: null });
const node = (nodeId: string, state: string, attempts: ReturnType<typeof attempt>[], updatedAtMs = 0) => ({ nodeId, iteration: 0, key: `${nodeId}#0`, state, label: null, outputTable: "t", error: null, updatedAtMs, attempts }) as unknown as GatewayRunNode;
const ev = (seq: number, type: string, timestampMs: number, extra: Record<string, unknown> = {}) => ({ seq, type, runId: "r1", timestampMs, ...extra }) as unknown as GatewayRunEventRow;

describe("the run tree model", () => {
  it("nests the frame's tasks in its structure with each node's state, counts progress per group, and lists tasks the XML does not place after it", () => {
    const xml = el("workflow", { name: "release" }, el("sequence", {}, el("task", { id: "build" }), el("parallel", {}, el("task", { id: "test-0" }), el("task", { id: "test-1" })), el("approval", { id: "ship" })));
    const nodes = [node("build", "finished", []), node("test-0", "failed", []), node("test-1", "in-progress", []), node("ship", "pending", [])];
    const items = buildTree(xml, [task("build", 0), task("test-0", 1), task("test-1", 2), task("ship", 3), task("stray", 4)], nodes);
    expect(items.map((i) => (i.kind === "group" ? `${groupTitle(i)} ${i.finished}/${i.total} ${i.state}` : `${i.nodeId} ${i.state}`))).toEqual(["Sequence 1/4 failed", "stray pending"]);
    const seq = items[0]!;
    if (seq.kind !== "group") throw new Error("expected a group");
    expect(seq.children.map((c) => (c.kind === "group" ? groupTitle(c) : `${c.element}:${c.nodeId}`))).toEqual(["task:build", "Parallel", "approval:ship"]);
    const all = visibleItems(items, new Set());
    expect(all.map((r) => `${r.depth}:${r.item.kind === "task" ? r.item.nodeId : r.item.element}`)).toEqual(["0:sequence", "1:build", "1:parallel", "2:test-0", "2:test-1", "1:ship", "0:stray"]);
    const parallel = seq.children[1]!;
    expect(visibleItems(items, new Set([parallel.key])).map((r) => (r.item.kind === "task" ? r.item.nodeId : r.item.element))).toEqual(["sequence", "build", "parallel", "ship", "stray"]);
    expect(buildTree(null, [task("a", 0)], []).map((i) => i.kind === "task" && `${i.nodeId} ${i.state} ${i.attempts}`)).toEqual(["a pending 0"]);
  });
});

describe("the timeline model", () => {
  it("draws a bar per attempt, the backoff between a failure and its retry, and a wait from the request to the decision", () => {
    const nodes = [
      node("charge", "finished", [attempt("charge", 1, "failed", 100, 200), attempt("charge", 2, "finished", 600, 700)]),
      node("ship", "finished", [attempt("ship", 1, "finished", 1500, 1510)]),
    ];
    const events = [
      ev(1, "TaskStarted", 100, { nodeId: "charge", iteration: 0, attempt: 1 }),
      ev(2, "TaskFailed", 200, { nodeId: "charge", iteration: 0, attempt: 1, willRetry: true, retryInMs: 400 }),
      ev(3, "TaskStarted", 600, { nodeId: "charge", iteration: 0, attempt: 2 }),
      ev(4, "ApprovalRequested", 800, { nodeId: "ship", iteration: 0, kind: "approval" }),
      ev(5, "RunWaiting", 810, { status: "waiting-approval", waitingOn: ["ship"] }),
      ev(6, "ApprovalDecided", 1400, { nodeId: "ship", iteration: 0, decision: {} }),
      ev(7, "RunFinished", 1600),
    ];
    const t = buildTimeline({ nodes, events, order: ["ship#0", "charge#0"], startMs: 0, endMs: 1600, now: 99_999 });
    expect(t.rows.map((r) => r.key)).toEqual(["ship#0", "charge#0"]);
    const spans = (key: string) => t.rows.find((r) => r.key === key)!.spans.map((s) => `${s.kind}:${s.state}:${s.startMs}-${s.endMs}${s.open ? ":open" : ""}`);
    expect(spans("charge#0")).toEqual(["attempt:failed:100-200", "retry:retry-backoff:200-600", "attempt:finished:600-700"]);
    expect(spans("ship#0")).toEqual(["wait:waiting-approval:800-1400", "attempt:finished:1500-1510"]);
    expect([t.startMs, t.endMs]).toEqual([0, 1600]);
  });

  it("keeps spans of a live run open up to now: a running attempt and a wait the log did not open", () => {
    const nodes = [node("work", "in-progress", [attempt("work", 1, "in-progress", 50, null)]), node("ci", "waiting-event", [], 70)];
    const t = buildTimeline({ nodes, events: [], order: [], startMs: 0, endMs: null, now: 500 });
    expect(t.rows.flatMap((r) => r.spans.map((s) => `${r.nodeId}:${s.kind}:${s.startMs}-${s.endMs}:${s.open}`))).toEqual(["work:attempt:50-500:true", "ci:wait:70-500:true"]);
    expect(tickStep(12_000, 6)).toBe(2000);
    expect(tickStep(90 * 60_000, 6)).toBe(900_000);
  });
});

describe("the run status rules", () => {
  it("allow each action only in the statuses the Gateway accepts, with a reason otherwise", () => {
    expect(whyNot("pause", "running")).toBeUndefined();
    expect(whyNot("pause", "waiting-approval")).toMatch(/parked/);
    expect(whyNot("resume", "paused")).toBeUndefined();
    expect(whyNot("resume", "failed")).toMatch(/paused run/);
    expect(whyNot("cancel", "finished")).toMatch(/already ended/);
    expect(whyNot("cancel", "waiting-event")).toBeUndefined();
    expect(whyNotRetry("failed", "failed")).toBeUndefined();
    expect(whyNotRetry("failed", "running")).toMatch(/pause or cancel/);
    expect(whyNotRetry("finished", "finished")).toMatch(/Rewind/);
  });
});

describe("the note of a task without attempts", () => {
  it("says an attempt may come only where one may: not of an approval decided or a task skipped", () => {
    expect(noAttemptsNote("pending")).toBe("No attempt yet.");
    expect(noAttemptsNote("waiting-approval")).toBe("No attempt yet: it waits on a person, a signal or a timer, not on code.");
    expect(noAttemptsNote("finished")).toMatch(/^No attempts: it finished without running code/);
    expect(noAttemptsNote("skipped")).toBe("No attempts: it was skipped before it ran.");
    expect(noAttemptsNote("cancelled")).toBe("No attempts: it was cancelled before it ran.");
    expect(noAttemptsNote("failed")).toMatch(/^No attempts: it failed without running code \(an approval denied/);
  });
});

describe("the attempts of a task retried for days", () => {
  const failed = (n: number, message = "503") => ({ attempt: n, state: "failed", error: { code: "TASK_FAILED", message } });
  const shown = (rows: ReturnType<typeof foldAttempts>) => rows.map((r) => (isFolded(r) ? `${r.items[0]!.attempt}-${r.items.at(-1)!.attempt}(${r.items.length})` : r.attempt));

  it("fold between the first and the last of a stretch that ended alike, and keep what differs", () => {
    const attempts = [...Array.from({ length: 400 }, (_, i) => failed(i + 1)), failed(401, "404"), { attempt: 402, state: "finished", error: null }];
    expect(shown(foldAttempts(attempts, new Set()))).toEqual([1, "2-399(398)", 400, 401, 402]);
    // Unfolded by its first attempt: every row again.
    expect(foldAttempts(attempts, new Set([2]))).toHaveLength(402);
  });

  it("leave short stretches whole: folding four rows into one saves nothing", () => {
    const four = [1, 2, 3, 4].map((n) => failed(n));
    expect(shown(foldAttempts(four, new Set()))).toEqual([1, 2, 3, 4]);
    expect(shown(foldAttempts([...four, failed(5)], new Set()))).toEqual([1, "2-4(3)", 5]);
    // Same state, another error: two stretches.
    expect(shown(foldAttempts([...four, failed(5, "timeout"), failed(6, "timeout")], new Set()))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("a file's patch", () => {
  it("tells its header, hunks, added, removed and context lines apart (a removed line that reads like a header is still removed)", () => {
    const patch = ["diff --git a/doc.md b/doc.md", "index 3b18e51..a2a5a6c 100644", "--- a/doc.md", "+++ b/doc.md", "@@ -1,3 +1,3 @@", " # Title", "-first draft", "+reviewed text", "--- not a header", "+++ nor this", "\\ No newline at end of file", "diff --git a/x.bin b/x.bin", "Binary files /dev/null and b/x.bin differ", ""].join("\n");
    expect(patchLines(patch).map((l) => l.kind)).toEqual(["meta", "meta", "meta", "meta", "hunk", "context", "del", "add", "del", "add", "meta", "meta", "meta"]);
    expect(patchLines(patch)[8]!.text).toBe("--- not a header");
  });
});
