import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { bash } from "durable-flow";
import { toolIsolation } from "./isolation.js";
import { codeOf, hostPidTo, isDead, rejection, sandboxDirs } from "./testing.js";

let dirs: ReturnType<typeof sandboxDirs>;
let root: string;
beforeEach(() => {
  dirs = sandboxDirs("flow-bash-harden-");
  root = dirs.root;
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  dirs.remove();
});

const mode = toolIsolation().mode;

describe(`bash process lifetime (isolation: ${mode})`, () => {
  it("settles at its timeout while a setsid child holds the output pipe, and kills that child", async () => {
    const script = `setsid sh -c '${hostPidTo("s.pid")}; exec sleep 30' & sleep 30`;
    const started = Date.now();
    const e = await rejection(bash.execute({ cmd: "sh", args: ["-c", script] }, { rootDir: root, timeoutMs: 1500 }));
    const took = Date.now() - started;
    expect(e.code).toBe("TOOL_TIMEOUT");
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(2500);
    const pid = Number(readFileSync(join(root, "s.pid"), "utf8"));
    // A new session leaves the process group; only the PID namespace reaches it.
    if (mode === "namespaces") await vi.waitFor(() => expect(isDead(pid)).toBe(true), { timeout: 2000, interval: 20 });
  });

  it("returns soon after the main process exits even when a setsid child keeps the pipe", async () => {
    const script = `setsid sh -c '${hostPidTo("s.pid")}; exec sleep 30' & while [ ! -s s.pid ]; do :; done; echo main done`;
    const started = Date.now();
    expect(await bash.execute({ cmd: "sh", args: ["-c", script] }, { rootDir: root, timeoutMs: 20_000 })).toBe("main done\n");
    expect(Date.now() - started).toBeLessThan(3000);
    const pid = Number(readFileSync(join(root, "s.pid"), "utf8"));
    if (mode === "namespaces") await vi.waitFor(() => expect(isDead(pid)).toBe(true), { timeout: 2000, interval: 20 });
  });

  it("caps the timeout at one hour whatever ctx.timeoutMs says", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    for (const timeoutMs of [10 * 3_600_000, Number.POSITIVE_INFINITY]) {
      const running = bash.execute({ cmd: "sleep", args: ["7200"] }, { rootDir: root, timeoutMs });
      let settled = false;
      const outcome = running.catch((e: unknown) => e).finally(() => (settled = true));
      // (vi.waitFor would advance the fake clock; setImmediate is real here.)
      while (vi.getTimerCount() === 0) await new Promise((r) => setImmediate(r));
      vi.advanceTimersByTime(3_600_000 - 1);
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      vi.advanceTimersByTime(1);
      const e = (await outcome) as { code: string; details: { timeoutMs: number } };
      expect(e.code).toBe("TOOL_TIMEOUT");
      expect(e.details.timeoutMs).toBe(3_600_000);
    }
  });
});

describe("bash without namespaces (FLOW_TOOL_ISOLATION=none, Linux)", () => {
  it("settles at the timeout and kills a setsid descendant through its environment mark", async () => {
    const script = `
      import { bash } from "durable-flow";
      const started = Date.now();
      const setsid = "setsid sh -c '${hostPidTo("s.pid")}; exec sleep 30' & sleep 30";
      const code = await bash.execute({ cmd: "sh", args: ["-c", setsid] }, { rootDir: ${JSON.stringify(root)}, timeoutMs: 1500 }).then(() => "ran", (e) => e.code);
      const exited = Date.now();
      await bash.execute({ cmd: "sh", args: ["-c", "setsid sh -c 'exec sleep 30' & echo main done"] }, { rootDir: ${JSON.stringify(root)}, timeoutMs: 20000 });
      console.log(JSON.stringify({ code, took: exited - started, returned: Date.now() - exited }));`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, FLOW_TOOL_ISOLATION: "none" },
      encoding: "utf8",
      timeout: 60_000,
    });
    const report = JSON.parse(child.stdout.trim().split("\n").pop()!) as { code: string; took: number; returned: number };
    expect(report.code).toBe("TOOL_TIMEOUT");
    expect(report.took).toBeLessThan(2500);
    expect(report.returned).toBeLessThan(2000);
    const pid = Number(readFileSync(join(root, "s.pid"), "utf8"));
    await vi.waitFor(() => expect(isDead(pid)).toBe(true), { timeout: 2000, interval: 20 });
  }, 60_000);
});

describe(`bash with allowNetwork false (isolation: ${mode})`, () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Ways out that the denylist cannot see: none of them names a blocked executable or a URL argument. */
  const escapes = () => ({
    python: { cmd: "python3", args: ["-c", `import urllib.request; urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=5).read()`] },
    node: { cmd: process.execPath, args: ["-e", `fetch('http://127.0.0.1:${port}/').then((r) => r.text())`] },
    devTcp: { cmd: "bash", args: ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port}; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3`] },
    gitAlias: { cmd: "git", args: ["-c", `alias.x=!bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3'`, "x"] },
  });

  it("reaches the loopback server with allowNetwork true (the probes work)", async () => {
    for (const [name, call] of Object.entries(escapes())) {
      const before = connections;
      await bash.execute(call, { rootDir: root, allowNetwork: true, timeoutMs: 10_000 });
      expect(connections, name).toBe(before + 1);
    }
  });

  it(`cuts python, node fetch, /dev/tcp and a git alias off (${mode === "none" ? "no isolation here: denylist only, warned" : "nothing reaches the server"})`, async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const before = connections;
    const codes: string[] = [];
    for (const call of Object.values(escapes())) {
      codes.push(await bash.execute(call, { rootDir: root, timeoutMs: 10_000 }).then(() => "ran", (e: { code: string }) => e.code));
    }
    if (mode === "none") {
      expect(connections).toBeGreaterThan(before);
    } else {
      expect(connections).toBe(before);
      expect(codes).toEqual(["TOOL_COMMAND_FAILED", "TOOL_COMMAND_FAILED", "TOOL_COMMAND_FAILED", "TOOL_COMMAND_FAILED"]);
      expect(warn.mock.calls.flat().join(" ")).not.toContain("TOOL_NETWORK_ISOLATION_UNENFORCED");
    }
  });

  it("still runs local commands without network: files, git, pipes", async () => {
    writeFileSync(join(root, "a.txt"), "one\ntwo\n");
    expect(await bash.execute({ cmd: "sh", args: ["-c", "wc -l < a.txt"] }, { rootDir: root })).toBe("2\n");
    expect(await bash.execute({ cmd: "git", args: ["init", "-q", "."] }, { rootDir: root })).toBe("");
  });

  it.each([
    ["nice -n 5 curl", ["nice", "-n", "5", "curl", "x"]],
    ["timeout -s KILL 5 curl", ["timeout", "-s", "KILL", "5", "curl", "x"]],
    ["timeout --kill-after 1 5 wget", ["timeout", "--kill-after", "1", "5", "wget", "x"]],
    ["stdbuf -o 0 curl", ["stdbuf", "-o", "0", "curl", "x"]],
    ["env -S 'curl -s x'", ["env", "-S", "curl -s x"]],
    ["env --split-string=wget x", ["env", "--split-string=wget x"]],
    ["env -u HOME CI=1 npm i", ["env", "-u", "HOME", "CI=1", "npm", "i"]],
    ["sudo -u x curl", ["sudo", "-u", "x", "curl", "x"]],
    ["xargs -a f curl", ["xargs", "-a", "f", "curl"]],
    ["sh -c 'nice -n 5 git fetch'", ["sh", "-c", "nice -n 5 git fetch"]],
  ])("the denylist reads through %s", async (_name, [cmd, ...args]) => {
    const code = await codeOf(bash.execute({ cmd: cmd!, args }, { rootDir: root }));
    expect(["TOOL_NETWORK_DISABLED", "TOOL_GIT_REMOTE_DISABLED"]).toContain(code);
  });

  it("still lets wrappers run local commands", async () => {
    expect(await bash.execute({ cmd: "nice", args: ["-n", "5", "echo", "hi"] }, { rootDir: root })).toBe("hi\n");
    expect(await bash.execute({ cmd: "env", args: ["-S", "echo split"] }, { rootDir: root })).toBe("split\n");
  });
});
