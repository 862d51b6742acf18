import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("flow up --serve", () => {
  it("runs the workflow inside a gateway, takes its approval over RPC, and exits when the run ends", async () => {
    const dir = tempDir("flow-up-serve-");
    const child = spawn(
      process.execPath,
      [join(ROOT, "node/cli/bin.mjs"), "up", join(ROOT, "node/cli/fixtures/approve-workflow.tsx"), "--serve", "--port", "0", "--run-id", "s1", "--input", '{"what":"v2"}', "--log-dir", "none"],
      { cwd: dir, env: { ...process.env, FLOW_TEST_DB: join(dir, "flow.db"), NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));

    const url = await until(() => /serving approve-workflow on (http:\/\/\S+) \(run s1\)/.exec(err)?.[1]);
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${url}/v1/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
      return (await res.json()) as { ok: boolean; result?: unknown; error?: unknown };
    };
    const pending = await until(async () => {
      const r = (await rpc("listApprovals", {})) as { result: Array<{ runId: string; nodeId: string }> };
      return r.result.length ? r.result : undefined;
    });
    expect(pending).toEqual([expect.objectContaining({ runId: "s1", nodeId: "ok" })]);
    expect(out).toContain("waits for an approval");
    expect(await rpc("submitApproval", { runId: "s1", nodeId: "ok", decision: "approve" })).toMatchObject({ ok: true });
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("hung"), 20_000))])).toBe(0);
    expect(out).toMatch(/"status": "finished"/);
    expect(out).toMatch(/"shipped": "v2"/);
  }, 60_000);
});
