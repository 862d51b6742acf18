import { describe, expect, it } from "vitest";
import type { RunResult } from "../engine/index.js";
import { executingHere } from "./executing-here.js";
import type { ActiveRun, GatewayHost } from "./host.js";

/** A host whose one run's session is `active` until `end()` settles it. */
function hostWith(closing: boolean | undefined) {
  let end!: () => void;
  const active = {
    runId: "r1",
    done: new Promise<RunResult>((resolve) => (end = () => resolve({ runId: "r1", status: "paused" }))),
    ...(closing === undefined ? {} : { closing }),
  } as ActiveRun;
  let current: ActiveRun | undefined = active;
  const host = { activeRun: (runId: string) => (runId === "r1" ? current : undefined) } as GatewayHost;
  return { host, active, end: () => ((current = undefined), end()) };
}

describe("executingHere", () => {
  it("answers a session that executes the run at once, even one still opening whose row says paused", async () => {
    for (const closing of [false, undefined]) {
      const { host, active } = hostWith(closing);
      // `done` never settles here: waiting for it would time the test out.
      expect(await executingHere(host, "r1")).toBe(active);
    }
    expect(await executingHere(hostWith(false).host, "other")).toBeUndefined();
  });

  it("waits for a session that published the run's end to close, then answers none", async () => {
    const { host, end } = hostWith(true);
    let answered = false;
    const asked = executingHere(host, "r1").then((a) => ((answered = true), a));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    end();
    expect(await asked).toBeUndefined();
  });
});
