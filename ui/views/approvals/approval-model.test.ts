import { describe, expect, it } from "vitest";
import { describeResolution, dueOf, modeOf, moveItem, titleOf, whoMayDecide } from "./approval-model.js";

describe("the inbox's reading of approvals", () => {
  it("picks the actions by kind and mode, and titles items by their request or prompt", () => {
    expect(modeOf({ kind: "approval", request: { mode: "approve", gatesTask: true } })).toBe("gate");
    expect(modeOf({ kind: "approval", request: { mode: "approve", gatesTask: false } })).toBe("decision");
    expect(modeOf({ kind: "approval", request: { mode: "rank" } })).toBe("rank");
    expect(modeOf({ kind: "human", request: { prompt: "x" } })).toBe("human");
    expect(titleOf({ kind: "approval", nodeId: "ship", request: { request: { title: "Ship?", summary: "4 passed" } } })).toEqual({ title: "Ship?", summary: "4 passed" });
    expect(titleOf({ kind: "human", nodeId: "claim", request: {} }).title).toBe("Fill in claim");
    expect(titleOf({ kind: "human", nodeId: "edit", request: { prompt: "Name it" } })).toEqual({ title: "Name it", summary: null });
    // A prompt with the text to work on: its first line titles it, the text is its summary (not one bold paragraph).
    expect(titleOf({ kind: "human", nodeId: "edit", request: { prompt: "Give this draft a headline:\n\nFirst line.\nSecond line.\n" } })).toEqual({ title: "Give this draft a headline:", summary: "First line.\nSecond line." });
  });

  it("says who may decide and when an item falls due", () => {
    expect(whoMayDecide({ request: { allowedUsers: ["ana", "bob"], allowedScopes: ["release"] } })).toBe("users ana, bob · scope release");
    expect(whoMayDecide({ request: {} })).toBeNull();
    expect(dueOf({ request: { autoAtMs: 5 }, deadlineMs: 9 })).toEqual({ what: "auto-approves", atMs: 5 });
    expect(dueOf({ request: {}, deadlineMs: null })).toBeNull();
  });

  it("words the winning decision of each mode", () => {
    expect(describeResolution({ approved: true, note: "go", decidedBy: "ana" }, null)).toBe("approved by ana: “go”");
    expect(describeResolution({ approved: false, note: null }, "bob")).toBe("denied by bob");
    expect(describeResolution({ selected: "payroll", notes: null }, null)).toBe("selected payroll");
    expect(describeResolution({ ranked: ["b", "a"] }, "carla")).toBe("ranked b, a by carla");
    expect(describeResolution({ value: { n: 1 } }, "dan")).toBe("submitted by dan");
  });

  it("moves a ranked option up and down, clamped at the ends", () => {
    expect(moveItem(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(moveItem(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(moveItem(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
  });
});
