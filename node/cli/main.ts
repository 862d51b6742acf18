/**
 * @module node/cli/main
 * The `flow` dispatcher: finds the command, runs it, turns errors into messages and exit
 * codes. Commands load lazily so `flow --help` stays fast.
 */
import { isFlowError } from "../../core/errors.js";
import { type CliCommand, type CliIO, EXIT, UsageError } from "./command.js";

/** Every command: name, one-line summary, loader. Issues add theirs here. */
const COMMANDS: Array<{ name: string; summary: string; load: () => Promise<CliCommand> }> = [
  { name: "up", summary: "Run a workflow file (or resume a run), showing progress", load: async () => (await import("./commands/up.js")).upCommand },
  { name: "runs", summary: "List runs, or show one run's nodes and events", load: async () => (await import("./commands/runs.js")).runsCommand },
  { name: "memory", summary: "List, get, set and search memory facts and notes", load: async () => (await import("./commands/memory.js")).memoryCommand },
  { name: "approvals", summary: "List pending approvals and human tasks", load: async () => (await import("./commands/approvals.js")).approvalsCommand },
  { name: "approve", summary: "Approve, deny, select or rank a pending approval", load: async () => (await import("./commands/approve.js")).approveCommand },
  { name: "submit", summary: "Submit the answer of a pending human task", load: async () => (await import("./commands/submit.js")).submitCommand },
  { name: "signal", summary: "Deliver a signal or event to a waiting run", load: async () => (await import("./commands/signal.js")).signalCommand },
  { name: "wake", summary: "List parked runs that can continue now", load: async () => (await import("./commands/wake.js")).wakeCommand },
  { name: "migrate", summary: "Move the SQLite store into PGlite or PostgreSQL", load: async () => (await import("./commands/migrate.js")).migrateCommand },
  { name: "openapi", summary: "List the operations of an OpenAPI description (openapi list <spec>)", load: async () => (await import("./commands/openapi.js")).openapiCommand },
  { name: "init", summary: "Create a new Flow project (package.json, tsconfig, a first workflow and its test)", load: async () => (await import("./commands/init.js")).initCommand },
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
      "Run `flow <command> --help` for a command's options.",
      "",
    ].join("\n"),
  );

export function processIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
  };
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    HELP(io);
    return name ? EXIT.ok : EXIT.usage;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`flow: unknown command "${name}".\n\n`);
    HELP(io);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`flow ${name}: ${error.message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    if (isFlowError(error)) {
      io.stderr(`flow ${name}: ${error.code}: ${error.message}\n`);
      return EXIT.failed;
    }
    io.stderr(`flow ${name}: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.failed;
  }
}
