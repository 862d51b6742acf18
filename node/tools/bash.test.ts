import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bash, getDefinedToolMetadata } from "durable-flow";
import { toolIsolation } from "./isolation.js";
import { hostPidTo, isDead, rejection as failure, sandboxDirs } from "./testing.js";

let dirs: ReturnType<typeof sandboxDirs>;
let base: string;
let root: string;

beforeEach(() => {
  dirs = sandboxDirs("flow-bash-");
  ({ base, root } = dirs);
});
afterEach(() => {
  vi.restoreAllMocks();
  dirs.remove();
});

describe("bash", () => {
  it("logs TOOL_NETWORK_ISOLATION_UNENFORCED once where the OS gives no network isolation", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await bash.execute({ cmd: "true" }, { rootDir: root });
    await bash.execute({ cmd: "true" }, { rootDir: root });
    const codes = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes("TOOL_NETWORK_ISOLATION_UNENFORCED"));
    expect(codes).toHaveLength(toolIsolation().mode === "none" ? 1 : 0);
  });

  it("runs an executable with arguments in rootDir and returns stdout and stderr combined", async () => {
    writeFileSync(join(root, "here.txt"), "");
    expect(await bash.execute({ cmd: "ls" }, { rootDir: root })).toBe("here.txt\n");
    const out = await bash.execute({ cmd: "sh", args: ["-c", "echo out; echo err >&2"] }, { rootDir: root });
    expect(out.split("\n").sort()).toEqual(["", "err", "out"]);
  });

  it("does no shell parsing: pipes, variables and redirects are plain arguments", async () => {
    const out = await bash.execute({ cmd: "echo", args: ["a|b", "$HOME", ">x", "*"] }, { rootDir: root });
    expect(out).toBe("a|b $HOME >x *\n");
    expect(existsSync(join(root, "x"))).toBe(false);
  });

  it("runs in opts.cwd inside rootDir and rejects a cwd outside it or missing", async () => {
    mkdirSync(join(root, "sub"));
    expect(await bash.execute({ cmd: "pwd", opts: { cwd: "sub" } }, { rootDir: root })).toBe(`${join(root, "sub")}\n`);
    expect((await failure(bash.execute({ cmd: "pwd", opts: { cwd: ".." } }, { rootDir: root }))).code).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect((await failure(bash.execute({ cmd: "pwd", opts: { cwd: "/" } }, { rootDir: root }))).code).toBe("TOOL_PATH_OUTSIDE_ROOT");
    expect((await failure(bash.execute({ cmd: "pwd", opts: { cwd: "nope" } }, { rootDir: root }))).code).toBe("TOOL_FILE_NOT_FOUND");
  });

  it("fails with TOOL_COMMAND_FAILED on a non-zero exit, carrying exit code and output", async () => {
    const f = await failure(bash.execute({ cmd: "sh", args: ["-c", "echo partial; exit 3"] }, { rootDir: root }));
    expect(f.code).toBe("TOOL_COMMAND_FAILED");
    expect(f.details).toMatchObject({ exitCode: 3, output: "partial\n" });
    expect(f.message).toContain("exited with code 3");
  });

  it("fails with TOOL_COMMAND_NOT_FOUND for an executable that is not on PATH", async () => {
    expect((await failure(bash.execute({ cmd: "no-such-program-flow" }, { rootDir: root }))).code).toBe("TOOL_COMMAND_NOT_FOUND");
  });

  it("truncates output to maxOutputBytes", async () => {
    const out = await bash.execute({ cmd: "sh", args: ["-c", "yes flow | head -c 100000"] }, { rootDir: root, maxOutputBytes: 1000 });
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(1000);
    expect(out.startsWith("flow\nflow\n")).toBe(true);
    expect(out).toMatch(/\[output truncated: \d+ of 100000 bytes omitted\]$/);
    // A cut never splits a multi-byte character.
    for (const max of [100, 101, 102]) {
      const wide = await bash.execute({ cmd: "sh", args: ["-c", "yes é | head -c 3000"] }, { rootDir: root, maxOutputBytes: max });
      expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(max);
      expect(wide).not.toContain("\uFFFD");
      expect(wide.startsWith("é\né\n")).toBe(true);
    }
  });

  it("kills a command that outlives its timeout with SIGKILL, children included", async () => {
    const script = `sh -c '${hostPidTo("child.pid")}; exec sleep 30' & ${hostPidTo("parent.pid")}; trap '' TERM; sleep 30`;
    const started = Date.now();
    const f = await failure(bash.execute({ cmd: "sh", args: ["-c", script] }, { rootDir: root, timeoutMs: 400 }));
    expect(f.code).toBe("TOOL_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(5000);
    const parent = Number(readFileSync(join(root, "parent.pid"), "utf8"));
    const child = Number(readFileSync(join(root, "child.pid"), "utf8"));
    await vi.waitFor(() => expect(isDead(parent) && isDead(child)).toBe(true), { timeout: 2000, interval: 20 });
  });

  it("kills background children when the main process exits, instead of waiting for them", async () => {
    const started = Date.now();
    const out = await bash.execute({ cmd: "sh", args: ["-c", `sh -c '${hostPidTo("child.pid")}; exec sleep 30' & while [ ! -s child.pid ]; do :; done; echo done`] }, { rootDir: root, timeoutMs: 20_000 });
    expect(out).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(5000);
    const child = Number(readFileSync(join(root, "child.pid"), "utf8"));
    await vi.waitFor(() => expect(isDead(child)).toBe(true), { timeout: 2000, interval: 20 });
  });

  it("kills the process when the task is cancelled through ctx.signal", async () => {
    const controller = new AbortController();
    const running = bash.execute({ cmd: "sh", args: ["-c", `${hostPidTo("pid")}; exec sleep 30`] }, { rootDir: root, signal: controller.signal });
    await vi.waitFor(() => expect(existsSync(join(root, "pid")) && readFileSync(join(root, "pid"), "utf8").endsWith("\n")).toBe(true), { timeout: 2000, interval: 10 });
    controller.abort();
    expect((await failure(running)).code).toBe("TASK_CANCELLED");
    const pid = Number(readFileSync(join(root, "pid"), "utf8"));
    await vi.waitFor(() => expect(isDead(pid)).toBe(true), { timeout: 2000, interval: 20 });
  });

  it("enforces the input limits: cmd up to 8192 chars, up to 128 args of up to 8192 chars", async () => {
    const long = "x".repeat(8193);
    expect((await failure(bash.execute({ cmd: long }, { rootDir: root }))).code).toBe("TOOL_INPUT_INVALID");
    expect((await failure(bash.execute({ cmd: "true", args: Array.from({ length: 129 }, () => "a") }, { rootDir: root }))).code).toBe("TOOL_INPUT_INVALID");
    expect((await failure(bash.execute({ cmd: "true", args: [long] }, { rootDir: root }))).code).toBe("TOOL_INPUT_INVALID");
    expect(await bash.execute({ cmd: "true", args: Array.from({ length: 128 }, () => "y".repeat(8192)) }, { rootDir: root })).toBe("");
  });

  it("has side effects and is not idempotent", () => {
    expect(getDefinedToolMetadata(bash)).toEqual({ name: "bash", sideEffect: true, idempotent: false });
  });
});

describe("bash network denylist (allowNetwork false)", () => {
  const git = (...args: string[]) => ({ cmd: "git", args: ["-c", "user.name=flow", "-c", "user.email=flow@example.invalid", ...args] });

  const blocked: Array<[string, { cmd: string; args?: string[] }, string]> = [
    ["curl", { cmd: "curl", args: ["-s", "example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["wget", { cmd: "wget", args: ["example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["npm", { cmd: "npm", args: ["test"] }, "TOOL_NETWORK_DISABLED"],
    ["bun", { cmd: "bun", args: ["install"] }, "TOOL_NETWORK_DISABLED"],
    ["pip", { cmd: "pip", args: ["install", "x"] }, "TOOL_NETWORK_DISABLED"],
    ["an executable by absolute path", { cmd: "/usr/bin/curl" }, "TOOL_NETWORK_DISABLED"],
    ["a URL argument", { cmd: "echo", args: ["https://example.com/x"] }, "TOOL_NETWORK_DISABLED"],
    ["an upper-case http URL argument", { cmd: "echo", args: ["HTTP://EXAMPLE.COM"] }, "TOOL_NETWORK_DISABLED"],
    ["a URL as a flag value", { cmd: "node", args: ["fetch.js", "--endpoint=https://example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["git push", git("push", "origin", "main"), "TOOL_GIT_REMOTE_DISABLED"],
    ["git pull", git("pull"), "TOOL_GIT_REMOTE_DISABLED"],
    ["git fetch", git("fetch", "--all"), "TOOL_GIT_REMOTE_DISABLED"],
    ["git clone", { cmd: "git", args: ["clone", "repo.git", "copy"] }, "TOOL_GIT_REMOTE_DISABLED"],
    ["git remote", { cmd: "git", args: ["remote", "-v"] }, "TOOL_GIT_REMOTE_DISABLED"],
    ["git -C dir fetch", { cmd: "git", args: ["-C", ".", "fetch"] }, "TOOL_GIT_REMOTE_DISABLED"],
    ["sh -c curl", { cmd: "sh", args: ["-c", "curl -s example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["bash -lc with a command after &&", { cmd: "bash", args: ["-lc", "cd . && npm install"] }, "TOOL_NETWORK_DISABLED"],
    ["a command after a pipe", { cmd: "sh", args: ["-c", "echo x | wget -i -"] }, "TOOL_NETWORK_DISABLED"],
    ["a command on a later line", { cmd: "sh", args: ["-c", "echo ok\ncurl example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["a command substitution", { cmd: "sh", args: ["-c", 'echo "$(curl -s example.com)"'] }, "TOOL_NETWORK_DISABLED"],
    ["a backtick substitution", { cmd: "sh", args: ["-c", "echo `wget -qO- example.com`"] }, "TOOL_NETWORK_DISABLED"],
    ["a variable assignment before the command", { cmd: "sh", args: ["-c", "CI=1 npm test"] }, "TOOL_NETWORK_DISABLED"],
    ["a nested shell", { cmd: "bash", args: ["-c", "sh -c 'pip install requests'"] }, "TOOL_NETWORK_DISABLED"],
    ["a command inside if/then", { cmd: "sh", args: ["-c", "if true; then bun x; fi"] }, "TOOL_NETWORK_DISABLED"],
    ["git fetch in a shell payload", { cmd: "sh", args: ["-c", "git status && git fetch origin"] }, "TOOL_GIT_REMOTE_DISABLED"],
    ["a URL in a shell payload", { cmd: "sh", args: ["-c", "python3 get.py https://example.com"] }, "TOOL_NETWORK_DISABLED"],
    ["a command behind env", { cmd: "env", args: ["CI=1", "npm", "test"] }, "TOOL_NETWORK_DISABLED"],
    ["a command behind timeout", { cmd: "timeout", args: ["5", "curl", "example.com"] }, "TOOL_NETWORK_DISABLED"],
  ];

  it.each(blocked)("blocks %s", async (_name, input, code) => {
    const f = await failure(bash.execute({ ...input, args: input.args ?? [] }, { rootDir: root }));
    expect(f.code).toBe(code);
  });

  const initRepo = async () => {
    await bash.execute({ cmd: "git", args: ["init", "-q", "."] }, { rootDir: root });
    writeFileSync(join(root, "data.txt"), "rows\n");
    await bash.execute({ cmd: "git", args: ["add", "data.txt"] }, { rootDir: root });
  };

  it("allows git status and a commit whose message contains the word fetch", async () => {
    await initRepo();
    expect(await bash.execute({ cmd: "git", args: ["status", "--short"] }, { rootDir: root })).toBe("A  data.txt\n");
    await bash.execute(git("commit", "-q", "-m", "fetch the data, then push it"), { rootDir: root });
    expect(await bash.execute({ cmd: "git", args: ["log", "--format=%s"] }, { rootDir: root })).toBe("fetch the data, then push it\n");
    expect(await bash.execute({ cmd: "git", args: ["log", "--grep=fetch", "--format=%s"] }, { rootDir: root })).toBe("fetch the data, then push it\n");
  });

  it("allows blocked words outside command position and arguments that are not URLs", async () => {
    expect(await bash.execute({ cmd: "echo", args: ["curl", "wget", "npm", "fetch", "push"] }, { rootDir: root })).toBe("curl wget npm fetch push\n");
    expect(await bash.execute({ cmd: "echo", args: ["http-notes.txt", "see https docs", "--mirror=ftp://x"] }, { rootDir: root })).toBe("http-notes.txt see https docs --mirror=ftp://x\n");
    expect(await bash.execute({ cmd: "sh", args: ["-c", "echo curl && echo 'npm install' | cat"] }, { rootDir: root })).toBe("curl\nnpm install\n");
    await initRepo();
    expect(await bash.execute({ cmd: "sh", args: ["-c", "git status --short; echo 'git fetch later'"] }, { rootDir: root })).toBe("A  data.txt\ngit fetch later\n");
  });

  it("lets everything through with allowNetwork true", async () => {
    const bin = join(base, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "curl"), "#!/bin/sh\necho fake curl \"$@\"\n");
    chmodSync(join(bin, "curl"), 0o755);
    expect((await failure(bash.execute({ cmd: join(bin, "curl"), args: ["x"] }, { rootDir: root }))).code).toBe("TOOL_NETWORK_DISABLED");
    expect(await bash.execute({ cmd: join(bin, "curl"), args: ["https://example.com"] }, { rootDir: root, allowNetwork: true })).toBe("fake curl https://example.com\n");
    expect(await bash.execute({ cmd: "echo", args: ["https://example.com"] }, { rootDir: root, allowNetwork: true })).toBe("https://example.com\n");
  });
});
