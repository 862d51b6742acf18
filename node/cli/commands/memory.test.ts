import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createFlow, createMemoryStore } from "durable-flow";
import { tempDir } from "../../testing/backends.js";
import { runCli } from "../testing.js";

const BIN = fileURLToPath(new URL("../bin.mjs", import.meta.url));

function cli(cwd: string) {
  return (...argv: string[]) => runCli(["memory", ...argv], { cwd });
}

describe("flow memory", () => {
  it("sets, gets, lists and deletes facts in the store the workflow uses", async () => {
    const dir = tempDir();
    const flow = cli(dir);
    expect((await flow("set", "user:alice", "theme", '{"color":"dark"}')).code).toBe(0);
    expect((await flow("set", "user:alice", "nickname", "Al")).stdout).toBe('user:alice  nickname = "Al"\n');
    await flow("set", "team-notes", "standup", "9:30", "--ttl", "60000");
    expect(await flow("get", "user:alice", "theme")).toEqual({ code: 0, stdout: '{"color":"dark"}\n', stderr: "" });
    expect((await flow("facts")).stdout).toBe('global:team-notes  standup = "9:30"  (ttl 60000 ms)\nuser:alice  nickname = "Al"\nuser:alice  theme = {"color":"dark"}\n');
    expect(JSON.parse((await flow("facts", "user:alice", "--json")).stdout).map((f: { key: string }) => f.key)).toEqual(["nickname", "theme"]);
    // The same store, read by the library.
    const memory = createMemoryStore(createFlow({}, { dbPath: join(dir, ".flow/flow.db") }).db);
    expect((await memory.getFact({ kind: "user", id: "alice" }, "theme"))?.valueJson).toBe('{"color":"dark"}');
    expect((await flow("delete", "user:alice", "theme")).code).toBe(0);
    const missing = await flow("get", "user:alice", "theme");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no fact "theme" in user:alice');
  });

  it("saves, lists, supersedes and searches notes", async () => {
    const flow = cli(tempDir());
    const first = (await flow("note", "agent:support", "Refunds", "take", "five", "days", "--kind", "policy", "--tag", "refunds")).stdout.trim();
    const second = (await flow("note", "agent:support", "Refunds take two days since March", "--supersedes", first)).stdout.trim();
    await flow("note", "agent:support", "Escalate outages to on-call", "--status", "pending");
    expect((await flow("notes", "agent:support")).stdout).toBe(`${second}  [accepted]  Refunds take two days since March\n`);
    expect((await flow("notes", "agent:support", "--all", "--status", "any")).stdout.split("\n").filter(Boolean).length).toBe(3);
    const notEnabled = await flow("search", "agent", "refunds");
    expect(notEnabled.code).toBe(1);
    expect(notEnabled.stderr).toContain("NOTE_SEARCH_NOT_ENABLED");
    const hits = await flow("search", "agent", "how", "long", "do", "refunds", "take", "--enable", "--json");
    expect(JSON.parse(hits.stdout).map((n: { id: string }) => n.id)).toEqual([second]);
    expect((await flow("status", first, "rejected")).stdout).toBe(`${first}  [rejected]\n`);
    const usage = await flow("search", "team", "x");
    expect(usage.code).toBe(2);
    expect((await flow("frobnicate")).code).toBe(2);
  });

  it("runs as the real flow executable", async () => {
    const dir = tempDir();
    const run = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, "memory", ...args], { cwd: dir });
    await run("set", "workflow:nightly", "last-run", '"2026-01-01"');
    const { stdout } = await run("get", "workflow:nightly", "last-run");
    expect(stdout).toBe('"2026-01-01"\n');
  }, 30_000);
});
