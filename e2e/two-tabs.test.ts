/**
 * Two tabs of the offline app (issue #13, "What it must show" 3): they share one database and
 * one engine (the first tab leads, the second forwards its requests to it, streams included);
 * closing the tab that runs a workflow mid-run lets the other tab take the run over and finish
 * it, every task exactly once.
 */
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import type { Page } from "playwright-core";
import { engineCall, engineReady, finishesByNode, runEvents, runStatus, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";

const TASKS = 12;

/**
 * Starts, in `page` (a page of the app's origin that runs no engine), a worker that takes a
 * synchronous access handle on every file of the database `flow` as soon as the closed tab's are
 * gone, and keeps them until `release()`: another context still holding the files, as the
 * browser does for a while after a tab closes.
 */
async function holdDatabaseFiles(page: Page): Promise<{ held: number; release(): Promise<void> }> {
  await page.evaluate(() => {
    const code = `
      let held = [];
      onmessage = async (e) => {
        if (e.data === "release") { for (const h of held) h.close(); held = []; postMessage("released"); return; }
        const root = await navigator.storage.getDirectory();
        const dir = await (await root.getDirectoryHandle("flow")).getDirectoryHandle("data");
        for await (const [, file] of dir.entries()) {
          if (file.kind !== "file") continue;
          // The closed tab lets go of its handles some time after it closed: take each once it is free.
          for (;;) {
            try { held.push(await file.createSyncAccessHandle()); break; }
            catch (err) { if (err.name !== "NoModificationAllowedError") throw err; await new Promise((r) => setTimeout(r, 20)); }
          }
        }
        postMessage(held.length);
      };`;
    const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    const ask = (message: string) => new Promise((resolve) => ((worker.onmessage = (e) => resolve(e.data)), worker.postMessage(message)));
    (globalThis as unknown as { holder: { ask: typeof ask } }).holder = { ask };
  });
  const ask = (message: string) => page.evaluate((m) => (globalThis as unknown as { holder: { ask(m: string): Promise<unknown> } }).holder.ask(m), message);
  const held = (await ask("hold")) as number;
  return { held, release: async () => void (await ask("release")) };
}

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

  it("waits, when it takes the database over, until the closed tab's file handles are free, then opens it whole", async () => {
    await app.ctx?.close();
    app.ctx = await launchPersistent(app.profile);
    const closing = app.ctx.pages()[0] ?? (await app.ctx.newPage());
    await closing.goto(app.server.url);
    expect(await engineReady(closing)).toEqual({ role: "leader", storage: "opfs" });
    const { runId } = await engineCall<{ runId: string }>(closing, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: 3 } });
    await until(() => runStatus(closing, runId), (s) => s === "finished", "the run to finish");

    // Another context of the origin (a page of the app's files that runs no engine) takes the
    // files as the leader's tab lets them go, and holds them while the next tab opens.
    const other = await app.ctx.newPage();
    await other.route("**/favicon.ico", (route) => route.fulfill({ status: 204 })); // the browser asks for one beside a script's page
    await other.goto(new URL("sw.js", app.server.url).href);
    await closing.close();
    const holder = await holdDatabaseFiles(other);
    expect(holder.held).toBeGreaterThan(100);

    const next = await app.ctx.newPage();
    await next.goto(app.server.url);
    await next.waitForFunction(() => "__FLOW_ENGINE__" in globalThis, null, { timeout: 45_000 });
    const waits = () => next.evaluate(() => (globalThis as unknown as { __FLOW_ENGINE__: { handleWaits(): Promise<number> } }).__FLOW_ENGINE__.handleWaits());
    await until(waits, (n) => n >= 1, "the new leader to find the files held and wait");
    await holder.release();

    expect(await engineReady(next)).toEqual({ role: "leader", storage: "opfs" });
    expect(await runStatus(next, runId)).toBe("finished");
    expect(JSON.stringify(await engineCall(next, "GET", `/v1/api/runs/${runId}/nodes/step-2/output`))).toContain('"value":4');
    // The database works for new runs too (every file has its handle).
    const again = await engineCall<{ runId: string }>(next, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: 3 } });
    await until(() => runStatus(next, again.runId), (s) => s === "finished", "a new run to finish");
    await app.ctx.close(); // throws when a page logged a console error ("Error opening file handle for node")
    app.ctx = undefined;
  }, 90_000);
});
