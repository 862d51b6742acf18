/**
 * Two tabs of the offline app (issue #13, "What it must show" 3): they share one database and
 * one engine (the first tab leads, the second forwards its requests to it, streams included);
 * closing the tab that runs a workflow mid-run lets the other tab take the run over and finish
 * it, every task exactly once.
 */
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import { engineCall, engineReady, finishesByNode, runEvents, runStatus, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";

const TASKS = 12;

describe("two tabs of the offline app", () => {
  const app = offlineApp("two-tabs");

  it("share one engine, and the other tab finishes a run whose tab closed, every task once", async () => {
    app.ctx = await launchPersistent(app.profile);
    const leader = app.ctx.pages()[0] ?? (await app.ctx.newPage());
    await leader.goto(app.server.url);
    const leading = await engineReady(leader);
    expect(leading.role).toBe("leader");
    const follower = await app.ctx.newPage();
    await follower.goto(app.server.url);
    // The follower knows where the leader keeps the database.
    expect(await engineReady(follower)).toEqual({ role: "follower", storage: leading.storage });

    // The follower reads the change stream through the leader's worker while the leader launches.
    await follower.evaluate(() => {
      const engine = (globalThis as unknown as { __FLOW_ENGINE__: { fetch(url: string): Promise<Response> } }).__FLOW_ENGINE__;
      (globalThis as unknown as { streamed: Promise<string> }).streamed = (async () => {
        const reader = (await engine.fetch("http://flow.worker/v1/api/stream")).body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while (!text.includes('"runId"')) text += (await reader.read()).value ?? "";
        await reader.cancel();
        return text;
      })();
    });
    const { runId } = await engineCall<{ runId: string }>(leader, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: TASKS, workMs: 300 } });
    expect(await follower.evaluate(() => (globalThis as unknown as { streamed: Promise<string> }).streamed)).toContain(runId);

    // Reads from the follower tab go through the leader's engine.
    await until(() => runEvents(follower, runId), (events) => finishesByNode(events).size >= 3, "three tasks finished");
    await leader.close();

    await until(() => follower.evaluate(() => (globalThis as unknown as { __FLOW_ENGINE__: { role: string } }).__FLOW_ENGINE__.role), (r) => r === "leader", "the follower to lead");
    await until(() => runStatus(follower, runId), (s) => s === "finished", "the run to finish in the other tab", 40_000);
    const events = await runEvents(follower, runId);
    expect(events.some((e) => e.type === "RunResumed" && e.takeover === true)).toBe(true);
    const finishes = finishesByNode(events);
    expect(finishes.size).toBe(TASKS);
    expect([...finishes.values()].every((n) => n === 1)).toBe(true);
    for (const i of [0, TASKS - 1]) expect(JSON.stringify(await engineCall(follower, "GET", `/v1/api/runs/${runId}/nodes/step-${i}/output`))).toContain(`${i * i}`);
  }, 90_000);
});
