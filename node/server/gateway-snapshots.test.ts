/**
 * A Gateway in a repository takes its workspace's first snapshot when it starts listening
 * (docs/time-travel.md "When a snapshot is taken"), so its first run there waits for no pass over
 * the tree; what changes between the two is still in that run's first snapshot.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it, onTestFinished, vi } from "vitest";
import { tempDir } from "../testing/backends.js";
import { gitIn, tempRepo } from "../vcs/testing.js";
import { gatewayWorkflows } from "./fixtures/gateway-workflows.js";
import { Gateway } from "./gateway.js";
import { rpc, until } from "./gateway-testing.js";

it("snapshots its workspace when it listens, and its first run's snapshot holds what changed since", async () => {
  vi.stubEnv("FLOW_SNAPSHOTS", "on");
  onTestFinished(() => void vi.unstubAllEnvs());
  const repo = tempRepo();
  const dbPath = join(tempDir("flow-gw-snap-"), "flow.db");
  const gateway = new Gateway({ workspaceRoot: repo }).register("greet", gatewayWorkflows(dbPath).greet);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  onTestFinished(() => gateway.close());
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  // No run yet: the private index is the first snapshot's, seeded and added when it listened.
  const privateIndex = join(repo, ".git", "flow");
  await until(() => existsSync(privateIndex) && readdirSync(privateIndex).some((f) => f.startsWith("index-")), Boolean, "the first snapshot at listen", 10_000);
  expect(gitIn(repo, "for-each-ref", "refs/flow")).toBe("");

  writeFileSync(join(repo, "after-listen.txt"), "written while the gateway waited\n");
  const runId = (await rpc(url, "launchRun", { workflow: "greet", input: { name: "repo" } })).body.result.runId as string;
  await gateway.host.activeRun(runId)?.done;
  const [attempt] = await gateway.host.db.store.query<{ vcs_start_pointer: string | null }>(`SELECT vcs_start_pointer FROM _flow_attempts WHERE run_id = ? AND node_id = 'hello'`, [runId]);
  expect(attempt?.vcs_start_pointer).toMatch(/^[0-9a-f]{40}$/);
  expect(gitIn(repo, "show", `${attempt!.vcs_start_pointer}:after-listen.txt`)).toBe("written while the gateway waited");
  expect(gitIn(repo, "status", "--porcelain")).toBe("?? after-listen.txt");
});

it("a rewind's preview names the repositories inside the workspace the restore would leave as they are, and changes nothing", async () => {
  vi.stubEnv("FLOW_SNAPSHOTS", "on");
  onTestFinished(() => void vi.unstubAllEnvs());
  const repo = tempRepo();
  const lib = tempRepo();
  writeFileSync(join(lib, "lib.txt"), "lib v1\n");
  gitIn(lib, "add", "lib.txt");
  gitIn(lib, "commit", "-q", "-m", "lib");
  gitIn(repo, "clone", "-q", lib, "deps/lib"); // an agent's clone, before the run
  const dbPath = join(tempDir("flow-gw-snap-"), "flow.db");
  const gateway = new Gateway({ workspaceRoot: repo }).register("greet", gatewayWorkflows(dbPath).greet);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  onTestFinished(() => gateway.close());
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const runId = (await rpc(url, "launchRun", { workflow: "greet", input: { name: "repo" } })).body.result.runId as string;
  await gateway.host.activeRun(runId)?.done;

  writeFileSync(join(repo, "later.txt"), "written after the run\n");
  writeFileSync(join(repo, "deps/lib/lib.txt"), "lib edited\n");
  const status = gitIn(repo, "status", "--porcelain");
  const preview = (await rpc(url, "rewindRun", { runId, nodeId: "hello", preview: true })).body.result;
  expect(preview).toMatchObject({ success: true, keptRepositories: ["deps/lib"], resetNodes: [] });
  expect(gitIn(repo, "status", "--porcelain")).toBe(status);
  expect(gitIn(join(repo, "deps/lib"), "status", "--porcelain")).toBe("M lib.txt");
  // Rows only: no restore, so nothing is kept.
  expect((await rpc(url, "rewindRun", { runId, nodeId: "hello", preview: true, restoreVcs: false })).body.result.keptRepositories).toBeUndefined();
  // The rewind itself names the same.
  expect((await rpc(url, "rewindRun", { runId, nodeId: "hello", resume: false })).body.result).toMatchObject({ success: true, keptRepositories: ["deps/lib"] });
});
