import { describe, expect, it } from "vitest";
import type { FlowWorkflow } from "./types.js";
import { recordDefiningSite } from "./workflow-identity.js";

/** A stack as V8 prints it, `new Error()` taken in `flow` (its first frame), then the callers. */
const stack = (...frames: string[]) => ["Error", ...frames.map((frame) => `    at ${frame}`)].join("\n");
const workflow = () => ({}) as FlowWorkflow;

describe("recordDefiningSite", () => {
  it("names the file that called flow, where flow lives in the built package's chunk", () => {
    const w = workflow();
    recordDefiningSite(w, stack("Object.flow (file:///app/node_modules/durable-flow/dist/chunks/chunk-LU77DU5A.js:8926:20)", "file:///app/deploy.tsx:12:16", "ModuleJob.run (node:internal/modules/esm/module_job:234:25)"));
    expect(w.sourcePath).toBe("/app/deploy.tsx");
  });

  it("names the file that called flow from the sources, through a helper of the caller's", () => {
    const w = workflow();
    recordDefiningSite(w, stack("Object.flow (/repo/core/api/create-api.ts:138:38)", "weatherWorkflow (/app/agent.tsx:22:10)", "/app/agent.tsx:34:16"));
    expect(w.sourcePath).toBe("/app/agent.tsx");
  });

  it("names the caller's frame where the workflow was bundled into one script with Flow", () => {
    const w = workflow();
    recordDefiningSite(w, stack("Object.flow (/app/out/bundle.mjs:900:20)", "/app/out/bundle.mjs:40012:16"));
    expect(w.sourcePath).toBe("/app/out/bundle.mjs");
  });

  it("records nothing where the runtime gives no file paths", () => {
    const w = workflow();
    recordDefiningSite(w, stack("flow (<anonymous>)", "eval (<anonymous>)"));
    expect(w.sourcePath).toBeUndefined();
  });
});
