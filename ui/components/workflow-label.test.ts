import { describe, expect, it } from "vitest";
import { servedAs, workflowTitle } from "./workflow-label.js";

describe("a run's workflow, as the console names it", () => {
  it("is the name its author gave it, else the key it is served under", () => {
    expect(workflowTitle({ workflowKey: "wf", workflowName: "weather" })).toBe("weather");
    expect(workflowTitle({ workflowKey: "wf", workflowName: null })).toBe("wf");
    expect(workflowTitle({ workflowKey: null, workflowName: "" })).toBeUndefined();
    expect(workflowTitle(undefined)).toBeUndefined();
  });

  it("says the key on hover only where it is not the name", () => {
    expect(servedAs({ workflowKey: "wf", workflowName: "weather" })).toBe("Served as wf");
    expect(servedAs({ workflowKey: "release", workflowName: "release" })).toBeUndefined();
    expect(servedAs({ workflowKey: "wf", workflowName: null })).toBeUndefined();
  });
});
