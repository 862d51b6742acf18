/**
 * @module e2e/support/console-guard
 * Every browser an e2e test launches (e2e/support/chromium.ts) is watched: a console error, an
 * uncaught page error, an HTTP answer of 400 or more, or a request that failed is recorded,
 * and closing the browser (or the persistent context) throws with the list, so the test file
 * fails. A test that provokes some on purpose (a refused token, a Gateway it stopped) says so
 * with `allowConsole(browser, /pattern/)`; what the test's own offline switch, a navigation or
 * closing a page cuts (`net::ERR_INTERNET_DISCONNECTED`, `net::ERR_ABORTED`, an open change
 * stream) is never counted.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";

interface GuardState {
  problems: string[];
  allowed: RegExp[];
  watched: WeakSet<Page>;
  /** Pages (and whole contexts) the test is closing: their cut connections are not the app's. */
  closing: WeakSet<object>;
}

const states = new WeakMap<object, GuardState>();

/** Failures the test caused by switching the network off or navigating away, not the app's. */
const NOT_THE_APP = /net::ERR_INTERNET_DISCONNECTED|net::ERR_ABORTED|net::ERR_NETWORK_CHANGED/;

function watchPage(state: GuardState, page: Page): void {
  if (state.watched.has(page)) return;
  state.watched.add(page);
  const close = page.close.bind(page);
  page.close = (...args) => {
    state.closing.add(page);
    return close(...args);
  };
  const record = (line: string) => {
    if (state.closing.has(page) || state.closing.has(page.context()) || NOT_THE_APP.test(line) || state.allowed.some((re) => re.test(line))) return;
    state.problems.push(line);
  };
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const at = m.location().url;
    record(`console error on ${page.url()}: ${m.text()}${at ? ` (at ${at})` : ""}`);
  });
  // A test's init script also runs on a new page's about:blank (where localStorage is denied): not the app.
  page.on("pageerror", (e) => page.url() !== "about:blank" && record(`uncaught error on ${page.url()}: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) record(`HTTP ${r.status()} ${r.request().method()} ${r.url()} (page ${page.url()})`);
  });
  page.on("requestfailed", (r) => record(`request failed ${r.method()} ${r.url()}: ${r.failure()?.errorText ?? "?"}`));
}

function watchContext(state: GuardState, ctx: BrowserContext): BrowserContext {
  const close = ctx.close.bind(ctx);
  ctx.close = (...args) => {
    state.closing.add(ctx);
    return close(...args);
  };
  for (const p of ctx.pages()) watchPage(state, p);
  ctx.on("page", (p) => watchPage(state, p));
  return ctx;
}

function report(state: GuardState, what: string): void {
  const lines = [...new Set(state.problems.filter((line) => !state.allowed.some((re) => re.test(line))))];
  state.problems.length = 0;
  if (lines.length) throw new Error(`The ${what} saw ${lines.length} console error(s) or failed request(s) (e2e/support/console-guard.ts):\n${lines.slice(0, 30).join("\n")}`);
}

/**
 * Watches a launched browser: its contexts and pages from now on; `close()` throws with what
 * it saw (after closing).
 * @example
 * const browser = guardConsole(await chromium.launch());
 */
export function guardConsole<T extends Browser | BrowserContext>(target: T): T {
  const state: GuardState = { problems: [], allowed: [], watched: new WeakSet(), closing: new WeakSet() };
  states.set(target, state);
  if ("newContext" in target) {
    const browser = target as Browser;
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (...args) => watchContext(state, await newContext(...args));
    const newPage = browser.newPage.bind(browser);
    browser.newPage = async (...args) => {
      const page = await newPage(...args);
      watchPage(state, page);
      return page;
    };
  } else watchContext(state, target as BrowserContext);
  const close = target.close.bind(target) as (...a: unknown[]) => Promise<void>;
  (target as { close: (...a: unknown[]) => Promise<void> }).close = async (...args: unknown[]) => {
    if ("contexts" in target) for (const c of (target as Browser).contexts()) state.closing.add(c);
    else state.closing.add(target);
    await close(...args);
    report(state, "browser");
  };
  return target;
}

/**
 * Lets lines matching `patterns` pass (what the test provokes on purpose: a 401 it expects).
 * @example
 * allowConsole(browser, /HTTP 401 /, /status of 401/);
 */
export function allowConsole(target: Browser | BrowserContext, ...patterns: RegExp[]): void {
  const state = states.get(target);
  if (!state) throw new Error("allowConsole: this browser was not launched by e2e/support/chromium.ts");
  state.allowed.push(...patterns);
}

/**
 * What was seen so far (and forgets it), for a test that checks a page load is clean itself.
 * @example
 * await page.goto(url); expect(takeConsoleProblems(browser)).toEqual([]);
 */
export function takeConsoleProblems(target: Browser | BrowserContext): string[] {
  const state = states.get(target);
  if (!state) throw new Error("takeConsoleProblems: this browser was not launched by e2e/support/chromium.ts");
  const lines = state.problems.filter((line) => !state.allowed.some((re) => re.test(line)));
  state.problems.length = 0;
  return lines;
}
