import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createFlow, FlowDb } from "durable-flow";
import { tempDir } from "../testing/backends.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/engine/fixtures/wait-workflow.tsx");

describe("a waiting run across processes", () => {
  it("parks, takes each delivery from another process, resumes in a third, and does everything exactly once", async () => {
    const dir = tempDir("flow-waits-");
    const env = { ...process.env, FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "log"), NO_COLOR: "1" };
    const flow = (...args: string[]) => {
      const r = spawnSync(process.execPath, [join(ROOT, "node/cli/bin.mjs"), ...args], { cwd: dir, env, encoding: "utf8" });
      expect(r.status, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const up = (...extra: string[]) => JSON.parse(flow("up", FIXTURE, "--run-id", "w1", "--json", "--log-dir", "none", ...extra).trim().split("\n").at(-1)!);
    const db = ["--db", env.FLOW_TEST_DB];

    expect(up("--input", "{}")).toMatchObject({ status: "waiting-approval" });
    expect(flow("approvals", ...db, "--json")).toContain('"ship"');
    flow("approve", "w1", "ship", "--by", "ana", ...db);
    expect(JSON.parse(flow("approve", "w1", "ship", "--by", "ana", "--json", ...db))).toMatchObject({ status: "duplicate" });

    expect(up("--resume")).toMatchObject({ status: "waiting-event" });
    flow("signal", "deployed", "--run-id", "w1", "--payload", '{"version":7}', "--delivery-id", "deploy-7", ...db);
    expect(JSON.parse(flow("signal", "deployed", "--run-id", "w1", "--payload", '{"version":7}', "--delivery-id", "deploy-7", "--json", ...db))).toMatchObject({ status: "duplicate" });

    // The timer starts when reached; this process may park on it or stay until it fires.
    let result = up("--resume");
    if (result.status === "waiting-timer") {
      await new Promise((r) => setTimeout(r, 350));
      result = up("--resume");
    }
    expect(result).toMatchObject({ status: "finished" });
    expect(up("--resume")).toMatchObject({ status: "finished" });

    expect(readFileSync(env.FLOW_TEST_LOG, "utf8").trim().split("\n")).toEqual(["before", "verify:7", "after"]);
    const events = await new FlowDb(createFlow({}, { dbPath: env.FLOW_TEST_DB }).db).listEvents("w1");
    for (const type of ["ApprovalDecided", "SignalReceived", "TimerFired"]) expect(events.filter((e) => e.type === type)).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  }, 120_000);
});
