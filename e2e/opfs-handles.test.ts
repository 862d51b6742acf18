/**
 * Opening a database on OPFS while another context still holds one of its files
 * (browser/store/opfs-handles.ts), in Chromium, with real access handles. The open asks for its
 * files as PGlite's `opfs-ahp` does: every file looked up first, then each one's access handle
 * asked for once its lookup answered; here half of them ask late, after the first open was
 * dropped for a refused file. Those late asks of a dropped open must never reach the browser:
 * refused, they are errors PGlite logs (two-tabs.test.ts once saw 687); granted, they hold files
 * no one closes, and every later open is refused until the deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium } from "./support/chromium.js";
import { type StaticServer, serveStatic } from "./support/static-server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The worker that opens: `{ files, lateMs }` in, `{ result }` or `{ error }` out. */
const OPENER = `
import { openWhenHandlesFree } from "./browser/store/opfs-handles.ts";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
onmessage = async ({ data: { files, lateMs } }) => {
  const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("db", { create: true });
  let opens = 0;
  const errors = [];
  let waits = 0;
  try {
    const handles = await openWhenHandlesFree(async () => {
      opens++;
      return Promise.all(files.map(async (name, i) => {
        const file = await dir.getFileHandle(name, { create: true });
        if (i >= files.length / 2) await sleep(lateMs);
        try {
          return await file.createSyncAccessHandle();
        } catch (error) {
          errors.push(name + ": " + error.name);
          throw error;
        }
      }));
    }, { deadlineMs: 5000, onWait: () => waits++ });
    for (const handle of handles) handle.close();
    postMessage({ result: { opens, waits, errors, handles: handles.length } });
  } catch (error) {
    postMessage({ error: String(error), opens, errors });
  }
};`;

/** Holds `name` (in the same directory) until told to let go; then checks every file can be opened. */
const HOLDER = `
let held;
onmessage = async ({ data: { op, name, files } }) => {
  const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("db", { create: true });
  if (op === "hold") { held = await (await dir.getFileHandle(name, { create: true })).createSyncAccessHandle(); postMessage("held"); }
  if (op === "release") { held.close(); postMessage("released"); }
  if (op === "free") {
    const refused = [];
    for (const f of files) {
      try { (await (await dir.getFileHandle(f)).createSyncAccessHandle()).close(); } catch (error) { refused.push(f + ": " + error.name); }
    }
    postMessage(refused);
  }
};`;

describe("an open on OPFS that finds a file held", () => {
  let dir: string;
  let server: StaticServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "flow-opfs-handles-"));
    const bundled = await build({ stdin: { contents: OPENER, resolveDir: ROOT, loader: "js" }, bundle: true, format: "iife", write: false, logLevel: "silent" });
    writeFileSync(join(dir, "opener.js"), bundled.outputFiles[0]!.text);
    writeFileSync(join(dir, "holder.js"), HOLDER);
    writeFileSync(join(dir, "index.html"), '<!doctype html><title>opfs</title><link rel="icon" href="data:,">');
    server = await serveStatic(dir);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close(); // throws when the page logged a console error
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens once the file is free, and a dropped open's late asks get no handle", async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    const files = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const outcome = await page.evaluate(async (files) => {
      const ask = (worker: Worker, message: unknown) => new Promise<any>((resolve) => ((worker.onmessage = (e) => resolve(e.data)), worker.postMessage(message)));
      const holder = new Worker("/holder.js");
      const opener = new Worker("/opener.js");
      await ask(holder, { op: "hold", name: "f0" });
      // The first open is refused f0 at once; its late asks come 400 ms later, after f0 was let go
      // (150 ms) and while a later open holds the files.
      const opened = ask(opener, { files, lateMs: 400 });
      await new Promise((r) => setTimeout(r, 150));
      await ask(holder, { op: "release" });
      const result = await opened;
      // Nothing the opens got is still held: the opener closed what it returned, and a dropped open got nothing else.
      const stillHeld = await ask(holder, { op: "free", files });
      return { ...result, stillHeld };
    }, files);

    expect(outcome.error).toBeUndefined();
    expect(outcome.result.handles).toBe(10);
    expect(outcome.result.opens).toBeGreaterThanOrEqual(2);
    expect(outcome.result.waits).toBe(outcome.result.opens - 1);
    // No ask ever failed where the open could see it: a refusal inside an open is never answered, and a dropped open's asks never reach the browser.
    expect(outcome.result.errors).toEqual([]);
    expect(outcome.stillHeld).toEqual([]);
  }, 60_000);
});
