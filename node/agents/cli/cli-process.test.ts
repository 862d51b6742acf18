/**
 * The process side of CLI agents against a fake executable on PATH: hard timeout, idle
 * timeout, output cap, abort killing the whole process group, spawn failure, preflight.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isFlowError, LocalPresetCliAgent, SessionCliAgent } from "durable-flow";
import { installFakeClis } from "../testing/fake-cli.js";

const fakes = installFakeClis();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe("CLI agent processes", () => {
  it("kills the process group at the hard timeout with PROCESS_TIMEOUT", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "flow-pid-")), "child");
    const agent = new LocalPresetCliAgent({ env: fakes.env({ hang: true, spawnChild: pidFile }), timeoutMs: 400 });
    const started = Date.now();
    const err = await agent.generate({ prompt: "hi" }).catch((e) => e);
    expect(isFlowError(err, "PROCESS_TIMEOUT")).toBe(true);
    expect(err.message).toMatch(/timed out after 400 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
    const child = Number(readFileSync(pidFile, "utf8"));
    expect(await until(() => !alive(child))).toBe(true);
  });

  it("stops a silent CLI at the idle timeout, but not one that keeps printing", async () => {
    const silent = new LocalPresetCliAgent({ env: fakes.env({ hang: true }), idleTimeoutMs: 300 });
    expect(isFlowError(await silent.generate({ prompt: "hi" }).catch((e) => e), "PROCESS_IDLE_TIMEOUT")).toBe(true);

    // The idle clock starts at spawn, so the limit leaves room for a loaded machine's Node start;
    // the ticks run longer in all than the limit, so only their resets keep the CLI alive.
    const chatty = new LocalPresetCliAgent({ env: fakes.env({ trickle: { everyMs: 200, count: 8 }, stdout: ["done"] }), idleTimeoutMs: 1000 });
    const out: string[] = [];
    const result = await chatty.generate({ prompt: "hi", onStdout: (t) => out.push(t) });
    expect(result.text).toMatch(/done$/);
    expect(out.join("")).toContain("tick 7");
  });

  it("drops the agent's idle limit when the call gives a plain number, and keeps it for an object", async () => {
    const agent = new LocalPresetCliAgent({ env: fakes.env({ sleepMs: 500, stdout: ["late"] }), idleTimeoutMs: 200 });
    expect((await agent.generate({ prompt: "hi", timeout: 5000 })).text).toBe("late");
    expect(isFlowError(await agent.generate({ prompt: "hi", timeout: { totalMs: 5000 } }).catch((e) => e), "PROCESS_IDLE_TIMEOUT")).toBe(true);
  });

  it("caps captured stdout at maxOutputBytes, keeping the tail on a character boundary", async () => {
    const agent = new LocalPresetCliAgent({ env: fakes.env({ bigOutputBytes: 100_000, stdout: ["FINAL ANSWER"] }), maxOutputBytes: 1001 });
    const events: any[] = [];
    const result = await agent.generate({ prompt: "hi", onEvent: (e) => events.push(e) });
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(1001);
    expect(result.text.endsWith("FINAL ANSWER")).toBe(true);
    expect(result.text).not.toContain("\uFFFD");
    expect(events.some((e) => e.type === "action" && e.action.title === "captured stdout truncated")).toBe(true);
  });

  it("keeps the answer of a stream-json result line even when stdout was truncated", async () => {
    const agent = new SessionCliAgent({ env: fakes.env({ bigOutputBytes: 50_000, stdout: [{ type: "result", subtype: "success", is_error: false, result: "kept", session_id: "s" }] }), maxOutputBytes: 500 });
    expect((await agent.generate({ prompt: "hi" })).text).toBe("kept");
  });

  it("kills the whole process group on abort, leaving no orphan", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "flow-pid-")), "child");
    const agent = new LocalPresetCliAgent({ env: fakes.env({ hang: true, spawnChild: pidFile }) });
    const controller = new AbortController();
    const run = agent.generate({ prompt: "hi", abortSignal: controller.signal }).catch((e) => e);
    expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "")).toBe(true);
    const child = Number(readFileSync(pidFile, "utf8"));
    expect(alive(child)).toBe(true);
    controller.abort();
    const err = await run;
    expect(isFlowError(err, "PROCESS_ABORTED")).toBe(true);
    expect(await until(() => !alive(child))).toBe(true);
  });

  it("fails with PROCESS_SPAWN_FAILED when the executable is not on PATH, and preflight says so first", async () => {
    const agent = new LocalPresetCliAgent({ env: { PATH: mkdtempSync(join(tmpdir(), "flow-empty-")) } });
    expect(isFlowError(await agent.generate({ prompt: "hi" }).catch((e) => e), "PROCESS_SPAWN_FAILED")).toBe(true);
    expect(isFlowError(await agent.preflight().catch((e) => e), "AGENT_CONFIG_INVALID")).toBe(true);
    await expect(new LocalPresetCliAgent({ env: fakes.env() }).preflight()).resolves.toBeUndefined();
  });

  it("classifies failures: quota with reset time, configuration, lost session, other", async () => {
    const now = Date.now();
    const quota = await new LocalPresetCliAgent({ env: fakes.env({ stderr: "Error: usage limit reached. Retry after 120 seconds.", exitCode: 1 }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(quota, "AGENT_QUOTA_EXCEEDED")).toBe(true);
    expect(quota.details.retryAtMs).toBeGreaterThanOrEqual(now + 119_000);
    const config = await new LocalPresetCliAgent({ env: fakes.env({ stderr: "401 Unauthorized: invalid api key", exitCode: 1 }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(config, "AGENT_CONFIG_INVALID")).toBe(true);
    const lost = await new SessionCliAgent({ env: fakes.env({ stderr: "No conversation found with session ID: abc", exitCode: 1, stdout: [] }) }).generate({ prompt: "x", resumeSession: "abc" }).catch((e) => e);
    expect(isFlowError(lost, "AGENT_SESSION_LOST")).toBe(true);
    expect(lost.details.discardResumeSession).toBe("abc");
    const other = await new LocalPresetCliAgent({ env: fakes.env({ stderr: "segfault", exitCode: 139 }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(other, "AGENT_CLI_ERROR")).toBe(true);
    expect(other.details.exitCode).toBe(139);
  });

  it("treats a usage-limit banner printed with exit code 0 as a quota stop", async () => {
    const agent = new SessionCliAgent({ env: fakes.env({ stdout: ["Claude usage limit reached. Your limit will reset at 4pm (UTC)."] }) });
    const err = await agent.generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(err, "AGENT_QUOTA_EXCEEDED")).toBe(true);
    const reset = new Date(err.details.retryAtMs);
    expect(reset.getUTCHours()).toBe(16);
  });
});
