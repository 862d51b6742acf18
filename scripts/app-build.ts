/**
 * @module scripts/app-build
 * Builds the app (`ui/`, the browser engine and the workflows it bundles) into `dist/app/` with
 * Vite, only when its sources changed since the last build (docs/app.md "Building the app").
 *
 * - Current or not: the newest modification time under the app's sources is compared with the
 *   one recorded in `dist/app/.build-stamp.json` by the build that produced `dist/app/` (a file
 *   edited while a build runs is newer than that build's stamp, so the next check rebuilds).
 * - Several processes may ask at once (e2e test files, `npm start`, `npm run build`): a lock
 *   file `dist/.app-build.lock` (created exclusively, holding the builder's pid) lets one build
 *   while the others wait, then they re-check. A lock whose process is gone is taken over.
 * - The build writes a fresh directory beside `dist/app/` and swaps it in, so a Gateway serving
 *   the old build never sees a half-written one.
 *
 * @example
 * ```sh
 * npx tsx scripts/app-build.ts        # npm run build:app; add --force to rebuild anyway
 * ```
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pidAlive } from "../node/pid-alive.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where the built app lives (the Gateway serves it from here). */
export const APP_DIR = join(ROOT, "dist", "app");

/** What the app is built from: a change under any of these rebuilds it. */
const SOURCES = ["ui", "browser", "core", "sync", "examples", "package.json", "vite.app.config.ts"];
const STAMP = ".build-stamp.json";
const LOCK = join(ROOT, "dist", ".app-build.lock");

/**
 * The newest modification time (ms) of the app's sources; test files are left out.
 * @example
 * const newest = appSourcesMtime();
 */
export function appSourcesMtime(): number {
  let newest = 0;
  const visit = (path: string) => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== "node_modules" && !name.startsWith(".")) visit(join(path, name));
    } else if (!/\.test(-d)?\.tsx?$/.test(path)) newest = Math.max(newest, st.mtimeMs);
  };
  for (const source of SOURCES) visit(join(ROOT, source));
  return newest;
}

/**
 * Whether `dist/app/` was built from the sources as they are now.
 * @example
 * if (!appBuildIsCurrent()) console.log("run npm run build:app");
 */
export function appBuildIsCurrent(dir = APP_DIR): boolean {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, STAMP), "utf8")) as { sourcesMtimeMs?: number };
    return existsSync(join(dir, "index.html")) && typeof stamp.sourcesMtimeMs === "number" && stamp.sourcesMtimeMs >= appSourcesMtime();
  } catch {
    return false;
  }
}

/** What `ensureAppBuilt` did. */
export interface AppBuildResult {
  /** `built`: this call built it; `current`: it was up to date (possibly after waiting for another builder). */
  status: "built" | "current";
  ms: number;
}

/**
 * Builds `dist/app/` unless it is current; safe to call from several processes at once.
 * @example
 * const { status } = await ensureAppBuilt(); // "current" the second time
 */
export async function ensureAppBuilt(opts: { force?: boolean; log?: (line: string) => void } = {}): Promise<AppBuildResult> {
  const started = performance.now();
  const done = (status: AppBuildResult["status"]): AppBuildResult => ({ status, ms: Math.round(performance.now() - started) });
  if (!opts.force && appBuildIsCurrent()) return done("current");
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  for (;;) {
    if (takeLock()) break;
    await new Promise((r) => setTimeout(r, 200));
    if (!opts.force && appBuildIsCurrent()) return done("current");
  }
  try {
    if (!opts.force && appBuildIsCurrent()) return done("current");
    opts.log?.("Building the app (ui/) into dist/app ...");
    await buildInto(APP_DIR);
    return done("built");
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/** Creates the lock file, or takes over one whose process has ended; false while another process holds it. */
function takeLock(): boolean {
  try {
    const fd = openSync(LOCK, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const pid = Number(readFileSync(LOCK, { encoding: "utf8", flag: "r" }).trim() || "0");
    if (pidAlive(pid)) return false;
    rmSync(LOCK, { force: true });
    return false;
  }
}

/** Runs `vite build` into a fresh directory, stamps it, and swaps it in for `dir`. */
async function buildInto(dir: string): Promise<void> {
  const sourcesMtimeMs = appSourcesMtime();
  const fresh = `${dir}.${process.pid}.new`;
  const old = `${dir}.${process.pid}.old`;
  rmSync(fresh, { recursive: true, force: true });
  const vite = join(ROOT, "node_modules", ".bin", "vite");
  const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
    const child = spawn(vite, ["build", "-c", "vite.app.config.ts", "--outDir", fresh, "--emptyOutDir", "--logLevel", "warn"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // A production build even when the caller runs under NODE_ENV=test (vitest): Vite would
      // otherwise build with import.meta.env.DEV true (no service worker, a "Dev Gateway").
      env: { ...process.env, NODE_ENV: "production" },
    });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk));
    child.stderr.on("data", (chunk: Buffer) => (text += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, text }));
  });
  if (output.code !== 0) {
    rmSync(fresh, { recursive: true, force: true });
    throw new Error(`The app did not build (vite build -c vite.app.config.ts exited with ${output.code}):\n${output.text}`);
  }
  writeFileSync(join(fresh, STAMP), JSON.stringify({ sourcesMtimeMs, builtAt: new Date().toISOString() }));
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(fresh, dir);
  rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { status, ms } = await ensureAppBuilt({ force: process.argv.includes("--force"), log: console.log });
  console.log(status === "built" ? `dist/app: built in ${ms} ms` : "dist/app: up to date");
}
