/**
 * @module node/cli/main
 * The `flow` dispatcher: finds the command, runs it, turns errors into messages and exit
 * codes. Commands load lazily so `flow --help` stays fast.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closestName, describeFailure } from "./cli-errors.js";
import { type CliCommand, type CliIO, EXIT, useColor } from "./command.js";

export { useWorkflowTsconfig } from "./workflow-tsconfig.js";

/** Every command: name, one-line summary, loader. Issues add theirs here. */
const COMMANDS: Array<{ name: string; summary: string; load: () => Promise<CliCommand> }> = [
  { name: "up", summary: "Run a workflow file (or resume a run), showing progress", load: async () => (await import("./commands/up.js")).upCommand },
  { name: "cancel", summary: "Cancel a run, whichever process executes it", load: async () => (await import("./commands/cancel.js")).cancelCommand },
  { name: "pause", summary: "Pause a running run, whichever process executes it", load: async () => (await import("./commands/pause.js")).pauseCommand },
  { name: "resume", summary: "Continue a run in this terminal (paused, parked, failed, or orphaned)", load: async () => (await import("./commands/resume.js")).resumeCommand },
  { name: "retry", summary: "Give a task of a run another try", load: async () => (await import("./commands/retry.js")).retryCommand },
  { name: "runs", summary: "List runs, or show one run's nodes and events", load: async () => (await import("./commands/runs.js")).runsCommand },
  { name: "memory", summary: "List, get, set and search memory facts and notes", load: async () => (await import("./commands/memory.js")).memoryCommand },
  { name: "approvals", summary: "List pending approvals and human tasks", load: async () => (await import("./commands/approvals.js")).approvalsCommand },
  { name: "approve", summary: "Approve, deny, select or rank a pending approval", load: async () => (await import("./commands/approve.js")).approveCommand },
  { name: "submit", summary: "Submit the answer of a pending human task", load: async () => (await import("./commands/submit.js")).submitCommand },
  { name: "signal", summary: "Deliver a signal or event to a waiting run", load: async () => (await import("./commands/signal.js")).signalCommand },
  { name: "wake", summary: "List parked runs that can continue now", load: async () => (await import("./commands/wake.js")).wakeCommand },
  { name: "hijack", summary: "Take over a task's CLI-agent session in this terminal", load: async () => (await import("./commands/hijack.js")).hijackCommand },
  { name: "migrate", summary: "Move the SQLite store into PGlite or PostgreSQL", load: async () => (await import("./commands/migrate.js")).migrateCommand },
  { name: "serve", summary: "Serve a folder of workflows over a Gateway (RPC, WebSocket, cron, webhooks)", load: async () => (await import("./commands/serve.js")).serveCommand },
  { name: "openapi", summary: "List the operations of an OpenAPI description (openapi list <spec>)", load: async () => (await import("./commands/openapi.js")).openapiCommand },
  { name: "init", summary: "Create a new Flow project (package.json, tsconfig, a first workflow and its test)", load: async () => (await import("./commands/init.js")).initCommand },
  { name: "timeline", summary: "A run's task attempts with their snapshots, rewinds and reverts", load: async () => (await import("./commands/timeline.js")).timelineCommand },
  { name: "rewind", summary: "Roll a run back to a task attempt (files and rows)", load: async () => (await import("./commands/rewind.js")).rewindCommand },
  { name: "revert", summary: "Restore the files of a task attempt (no task or status change)", load: async () => (await import("./commands/revert.js")).revertCommand },
  { name: "fork", summary: "Start a new run from a task attempt of a run, optionally with an edited input", load: async () => (await import("./commands/fork.js")).forkCommand },
  { name: "replay", summary: "Run a finished run again (same input) from a task or from the start", load: async () => (await import("./commands/replay.js")).replayCommand },
  { name: "snapshots", summary: "List, diff or delete a run's workspace snapshots", load: async () => (await import("./commands/snapshots.js")).snapshotsCommand },
];

const HELP = (io: CliIO) =>
  io.stdout(
    [
      "flow: durable workflows for AI agents",
      "",
      "Usage: flow <command> [options]",
      "",
      "Commands:",
      ...COMMANDS.map((c) => `  ${c.name.padEnd(14)}${c.summary}`),
      "",
      "Run `flow <command> --help` for a command's options. Every command takes --verbose",
      "(stack traces with errors); `flow --version` prints the version. A run id may be given",
      "shortened as the app shows it (654f2834, cron-night…480000): it names the one run it fits.",
      "",
    ].join("\n"),
  );

/**
 * The IO of this process. A closed stdout (`flow runs | head -3`) is not an error: once the
 * reader is gone (EPIPE), further output is dropped and the command carries on (a run still
 * finishes and is recorded); the same for stderr.
 * @example
 * process.exitCode = await main(process.argv.slice(2), processIO());
 */
export function processIO(): CliIO {
  return {
    stdout: writerOf(process.stdout),
    stderr: writerOf(process.stderr),
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
  };
}

function writerOf(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    closed = true;
  });
  return (text) => {
    if (!closed && !stream.destroyed) stream.write(text);
  };
}

/**
 * An engine warning as the CLI prints it: `! message`, then the cause it carries (`details.error`:
 * git's own message for a snapshot that failed, a workflow file's compile error...), indented.
 * @example
 * warningLines("Run r1: could not snapshot /repo ...", { error: "fatal: ..." }, false); // "! Run r1: ...\n    fatal: ...\n"
 */
function warningLines(message: string, details: Record<string, unknown> | undefined, color: boolean): string {
  const cause = typeof details?.error === "string" ? details.error.trim() : "";
  const indented = cause ? cause.split("\n").map((line) => `    ${line}\n`).join("") : "";
  return `${color ? "\u001b[33m!\u001b[0m" : "!"} ${message}\n${indented}`;
}

/** The version of the durable-flow package this CLI belongs to. */
function flowVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "durable-flow" && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) return "unknown";
  }
}

/**
 * Runs the CLI; resolves to the exit code. `--verbose` (anywhere) adds stack traces to errors.
 * @example
 * const code = await main(["runs", "--limit", "5"]);
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const verbose = argv.includes("--verbose");
  const [name, ...rest] = argv.filter((a) => a !== "--verbose");
  if (!name || name === "--help" || name === "-h" || name === "help") {
    HELP(io);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === "--version" || name === "-v") {
    io.stdout(`${flowVersion()}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const near = closestName(name, COMMANDS.map((c) => c.name));
    io.stderr(`flow: INVALID_ARGUMENT: unknown command "${name}".${near ? ` Did you mean \`flow ${near}\`?` : ""} Run \`flow --help\` for the commands.\n`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  // Engine warnings (workflow changed, ...) print once, as the CLI's own lines, not as Node warnings.
  const { routeWarnings } = await import("../engine/index.js");
  const restoreWarnings = routeWarnings((message, details) => io.stderr(warningLines(message, details, useColor(io))));
  try {
    return await command.run(rest, io);
  } catch (error) {
    const failure = describeFailure(name, error, { verbose });
    io.stderr(failure.line);
    return failure.exitCode;
  } finally {
    restoreWarnings();
  }
}
