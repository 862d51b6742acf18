/**
 * Token-delta benchmark (docs/performance.md "A streamed token to a watching browser"; issue
 * #26's goal: p99 < 100 ms): the time from the model server writing a token to that token
 * showing in the transcript of a browser watching the run page.
 *
 *   npx tsx bench/token-delta.ts                          # 3 runs of 200 words, one every 20 ms
 *   npx tsx bench/token-delta.ts --runs 5 --words 300 --every 10
 *
 * A Gateway on loopback (the app's workflows over a fresh SQLite file, e2e/support/gateway.ts)
 * runs the `assistant` workflow's SDK agent against `durable-flow/testing`'s provider server.
 * The model's first turn calls the HTTP tool on a page this script holds open until Chromium
 * shows the run page with the `answer` node selected, so no token streams before the browser
 * watches. The second turn streams `w0 w1 … wN` word by word; the server notes when it wrote
 * each word (`onSend`), the page notes when each word first appears in a `transcript-text`
 * (a MutationObserver), both on the machine's clock (`performance.timeOrigin +
 * performance.now()`). Fields: runs, words, everyMs, samples, p50Ms/p90Ms/p99Ms/maxMs, load
 * (1-minute load average at the end; the machine is shared).
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startProviderServer, type ScriptedTurn } from "durable-flow/testing";
import { launchChromium } from "../e2e/support/chromium.js";
import { startAppGateway } from "../e2e/support/gateway.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" }, words: { type: "string", default: "200" }, every: { type: "string", default: "20" } } });
const runs = Number(values.runs);
const words = Number(values.words);
const everyMs = Number(values.every);

/** Notes, per word index, when it first showed in a transcript text of the page. */
const SEEN_OBSERVER = `
  window.__seen = {};
  const scan = () => {
    const at = performance.timeOrigin + performance.now();
    for (const el of document.querySelectorAll('[data-testid="transcript-text"]'))
      for (const m of (el.textContent ?? "").matchAll(/\\bw(\\d+)\\b/g)) if (!(m[1] in window.__seen)) window.__seen[m[1]] = at;
  };
  new MutationObserver(scan).observe(document, { subtree: true, childList: true, characterData: true });
`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

// The page the tool reads: held until the browser watches.
let hold: ServerResponse | undefined;
const pageServer = createServer((_req, res) => {
  hold = res;
});
await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/wait.txt`;

const text = Array.from({ length: words }, (_, i) => `w${i}`).join(" ");
const turns: ScriptedTurn[] = [];
for (let r = 0; r < runs; r++) turns.push({ toolCalls: [{ id: `call-${r}`, name: "http", args: { url: pageUrl } }] }, { text: JSON.stringify({ answer: text }), everyMs });
/** Per run, when the server wrote each word. */
const sentAt: Array<Map<number, number>> = [];
const model = await startProviderServer(turns, {
  onSend: (e) => {
    const content = e.data.startsWith("{") ? (JSON.parse(e.data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content : undefined;
    for (const m of content?.matchAll(/\bw(\d+)\b/g) ?? []) sentAt[sentAt.length - 1]!.set(Number(m[1]), e.atMs);
  },
});
process.env.FLOW_LOCAL_BASE_URL = model.url;
process.env.FLOW_LOCAL_MODEL = "gpt-4o";
const [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
const latencies: number[] = [];
try {
  for (let r = 0; r < runs; r++) {
    const runId = `bench-token-${r}-${Date.now()}`;
    sentAt.push(new Map());
    const res = await fetch(`${gw.url}/v1/api/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workflow: "assistant", runId, input: { question: "Count.", url: pageUrl } }) });
    if (!res.ok) throw new Error(`launch answered ${res.status}: ${await res.text()}`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}?node=answer`);
    await page.getByTestId("node-panel").waitFor({ timeout: 30_000 });
    await page.evaluate(SEEN_OBSERVER);
    // The tool's request is held until now; the answer streams from here on.
    while (!hold) await new Promise((resolve) => setTimeout(resolve, 10));
    hold.writeHead(200, { "content-type": "text/plain" }).end("Count to the end.");
    hold = undefined;
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 120_000 });
    await page.waitForFunction((n) => Object.keys((window as unknown as { __seen: object }).__seen).length >= n, words, { timeout: 30_000 });
    const seen = (await page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen)) as Record<string, number>;
    for (const [i, at] of sentAt[r]!) latencies.push(seen[i]! - at);
    await page.close();
  }
  console.log(JSON.stringify({ bench: "token-delta", runs, words, everyMs, samples: latencies.length, p50Ms: pct(latencies, 50), p90Ms: pct(latencies, 90), p99Ms: pct(latencies, 99), maxMs: pct(latencies, 100), load: Math.round(loadavg()[0]! * 10) / 10 }));
} finally {
  await browser.close();
  await gw.close();
  await model.close();
  pageServer.close();
}
