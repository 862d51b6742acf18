/**
 * @module node/agents/testing/fake-cli
 * Puts fake versions of the thirteen coding-agent CLIs on a `PATH` directory. Each is a small
 * shell wrapper that runs `fake-cli.mjs` with its own name: it records argv, cwd, stdin and the
 * relevant environment variables to a JSON-lines file and prints that CLI's real output format
 * (or what the test's scenario asks for: other lines, stderr, an exit code, a delay, a hang,
 * output in a trickle or in bulk, a grandchild process). Published as `durable-flow/testing`
 * (node/testing/index.ts); `fake-cli.mjs` ships beside the bundle that holds this module
 * (scripts/build.ts copies it there).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The executables of the thirteen variants.
 * @example
 * for (const name of FAKE_CLI_NAMES) expect(existsSync(join(fakes.binDir, name))).toBe(true);
 */
export const FAKE_CLI_NAMES = ["claude", "codex", "agy", "gemini", "pi", "omp", "kimi", "forge", "amp", "vibe", "opencode", "openclaw", "hermes"] as const;

/**
 * One fake executable's name.
 * @example
 * const name: FakeCliName = "claude";
 */
export type FakeCliName = (typeof FAKE_CLI_NAMES)[number];

/**
 * What a fake may be told to do (all optional; the default prints the CLI's fixture).
 * @example
 * const agent = new SessionCliAgent({ env: fakes.env({ stdout: [{ type: "result", result: "done" }], exitCode: 0 }) });
 */
export interface FakeCliScenario {
  /** Lines to print instead of the fixture (objects are JSON-encoded). */
  stdout?: unknown[];
  stderr?: string;
  exitCode?: number;
  sleepMs?: number;
  /** Never exit (until killed). */
  hang?: boolean;
  /** Print a line every `everyMs`, `count` times, before the answer. */
  trickle?: { everyMs: number; count: number };
  /** Print this many bytes of two-byte characters before the answer. */
  bigOutputBytes?: number;
  /** Start a long-lived grandchild and write its pid to this file. */
  spawnChild?: string;
  /** Content of codex's `--output-last-message` file. */
  lastMessage?: string;
  /** Fail (exit 1) the first `times` runs, counting in `file`. */
  failTimes?: { file: string; times: number };
  /** RPC modes: send an extension UI request of this method before answering. */
  uiRequest?: string;
}

/**
 * One recorded invocation.
 * @example
 * expect(fakes.records()[0]).toMatchObject({ name: "claude", args: expect.arrayContaining(["-p"]) });
 */
export interface FakeCliRecord {
  name: FakeCliName;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  pid: number;
  stdin?: string | null;
  rpcReceived?: Record<string, unknown>;
}

/**
 * Installed fakes.
 * @example
 * const fakes = installFakeClis();
 * const env = fakes.env({ sleepMs: 50 });
 */
export interface FakeClis {
  /** The temporary directory holding the thirteen executables. */
  binDir: string;
  /** The JSON-lines file each invocation appends its {@link FakeCliRecord} to. */
  recordFile: string;
  /** Agent `env` that puts the fakes first on PATH, with an optional scenario. */
  env(scenario?: FakeCliScenario): Record<string, string>;
  /** Invocations so far, oldest first. */
  records(): FakeCliRecord[];
}

/**
 * Installs the fakes in a fresh temporary directory.
 * @example
 * const fakes = installFakeClis();
 * const agent = new SessionCliAgent({ env: fakes.env() });
 */
export function installFakeClis(): FakeClis {
  const binDir = mkdtempSync(join(tmpdir(), "flow-fake-cli-"));
  const recordFile = join(binDir, "records.jsonl");
  const script = fileURLToPath(new URL("./fake-cli.mjs", import.meta.url));
  for (const name of FAKE_CLI_NAMES) {
    const file = join(binDir, name);
    writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${script}" ${name} "$@"\n`);
    chmodSync(file, 0o755);
  }
  return {
    binDir,
    recordFile,
    env: (scenario) => ({
      PATH: `${binDir}:${process.env.PATH ?? ""}`,
      FAKE_CLI_RECORD: recordFile,
      ...(scenario ? { FAKE_CLI_SCENARIO: JSON.stringify(scenario) } : {}),
    }),
    records: () =>
      existsSync(recordFile)
        ? readFileSync(recordFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as FakeCliRecord)
        : [],
  };
}
