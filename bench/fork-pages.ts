/**
 * What a child process started from Node costs Node afterwards (docs/performance.md "The git
 * shell started before the run"): libuv forks the whole process, which leaves every page of its
 * heap copy-on-write, so each page's next write faults. One JSON line per case: the CPU time of
 * writing one byte per page of `--mb` MB of buffers, with no child started and after one.
 *
 *   npx tsx bench/fork-pages.ts            # 50 MB
 *   npx tsx bench/fork-pages.ts --mb 200
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { mb: { type: "string", default: "50" } } });
const MB = Number(values.mb);
const buffers = Array.from({ length: MB }, () => Buffer.alloc(1 << 20, 1));

/** CPU ms to write one byte per 4 KB page of every buffer. */
function touchPages(): number {
  const before = process.cpuUsage();
  for (const buffer of buffers) for (let at = 0; at < buffer.length; at += 4096) buffer[at]! ^= 1;
  const used = process.cpuUsage(before);
  return Math.round((used.user + used.system) / 100) / 10;
}

touchPages(); // every page present and writable before the measurement
const noChild = touchPages();
const child = spawn("sh", ["-c", "read line"], { stdio: ["pipe", "ignore", "ignore"] });
await new Promise((resolve) => child.once("spawn", resolve));
const afterChild = touchPages();
child.stdin.end("\n");
console.log(JSON.stringify({ bench: "fork-pages", mb: MB, pages: MB * 256, touchCpuMsNoChild: noChild, touchCpuMsAfterSpawn: afterChild }));
