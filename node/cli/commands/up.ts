/**
 * @module node/cli/commands/up
 * `flow up <workflow file> --input '<json>'`: runs a workflow (or resumes a run) and shows
 * progress, then a summary (time, tasks, attempts). Ctrl-C once pauses (in-flight tasks
 * finish), twice cancels.
 */
import { accessSync, constants, mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { bindingOf, FlowDb, runWorkflow } from "../../../core/engine/index.js";
import type { FlowEvent, FlowWorkflow, RunOptions, RunResult } from "../../../core/engine/index.js";
import { type CliCommand, EXIT, UsageError, useColor } from "../command.js";
import { prepareSnapshots } from "../../engine/index.js";
import { loadWorkflow } from "../load-workflow.js";
import { ProgressLines, RunTally } from "../progress.js";
import { formatToolEvent } from "../transcript-print.js";
import { serveRun, STARTED_BY_FLOW_UP } from "./up-serve.js";
import { parseCli } from "./wait-cli.js";

const USAGE = `Usage: flow up <workflow file> [options]

Runs the workflow exported by the file (default export) and prints its progress. A run that
continues as new (ContinueAsNew) goes on as its next run, in this process, until one ends.

Options:
  --input <json>          Run input as JSON (default {})
  --input-file <path>     Run input from a JSON file
  --run-id <id>           Id for the new run, or the run to resume
  --resume                Resume the run given by --run-id
  --force                 Resume even if another live process owns the run
  --root-dir <dir>        The directory the run works in (default: this one). A resumed run
                          works in the directory it recorded; --root-dir moves it
  --max-concurrency <n>   Tasks running at once (default 4)
  --log-dir <dir>         Where the run's NDJSON event log goes (default .flow/logs; "none" disables)
  --wait                  When only approvals, signals or timers are left, stay and wait for
                          them (polling the store) instead of parking the run and exiting
  --hot                   Reload the workflow file when it is edited (docs/hot-reload.md)
  --serve                 Run it inside a Gateway that serves it (HTTP RPC, WebSocket, the
                          gateway client): watch, approve and signal the run over the API; the
                          process stays while the run waits and exits when it ends
  --port <n>              With --serve: the port (default 7331; 0 picks a free one)
  --host <host>           With --serve: the interface (default 127.0.0.1)
  --token <token>         With --serve: require this bearer token (default FLOW_API_KEY)
  --no-tools              Do not print agents' tool calls as they happen
  --json                  Print events as NDJSON instead of progress lines
  --quiet                 Print only the result
  --verbose               Print stack traces with errors`;

export const upCommand: CliCommand = {
  name: "up",
  summary: "Run a workflow file",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCli(argv, {
      input: { type: "string" },
      "input-file": { type: "string" },
      "run-id": { type: "string" },
      resume: { type: "boolean" },
      force: { type: "boolean" },
      "root-dir": { type: "string" },
      "max-concurrency": { type: "string" },
      "log-dir": { type: "string" },
      json: { type: "boolean" },
      "no-tools": { type: "boolean" },
      quiet: { type: "boolean" },
      wait: { type: "boolean" },
      hot: { type: "boolean" },
      serve: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      token: { type: "string" },
    });
    const [file, extra] = positionals;
    if (!file) throw new UsageError("missing the workflow file.");
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"; give one workflow file.`);
    if (values.resume && !values["run-id"]) throw new UsageError("--resume needs --run-id.");
    const input = parseInput(values.input, values["input-file"], io.cwd);
    const maxConcurrency = values["max-concurrency"] === undefined ? undefined : Number(values["max-concurrency"]);
    if (maxConcurrency !== undefined && !(Number.isInteger(maxConcurrency) && maxConcurrency >= 1)) throw new UsageError("--max-concurrency must be a whole number of at least 1.");
    const logDir = logDirOf(values["log-dir"], io.cwd);
    const port = values.port === undefined ? 7331 : Number(values.port);
    if (!(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError("--port must be a port number (0 picks a free one).");
    if (!values.serve && (values.port !== undefined || values.host !== undefined || values.token !== undefined)) throw new UsageError("--port, --host and --token go with --serve.");
    if (values.serve && (values.wait || values.hot)) throw new UsageError("--serve stays while the run waits already; it does not combine with --wait or --hot.");
    const rootDir = values["root-dir"] === undefined ? undefined : resolve(io.cwd, values["root-dir"]);
    if (values.serve && values.resume && rootDir !== undefined) throw new UsageError("--serve --resume continues the run where it recorded; move it with flow up --resume --root-dir first.");
    // The run's first snapshot is taken while the workflow file loads (docs/time-travel.md).
    if (!values.resume) prepareSnapshots(rootDir ?? io.cwd);
    const { workflow, path } = await loadWorkflow(file, io.cwd);
    const color = useColor(io);
    const tally = new RunTally();
    const startedAt = Date.now();

    const cancel = new AbortController();
    const pause = new AbortController();
    const onSigint = () => {
      if (!pause.signal.aborted) {
        io.stderr("\nPausing: running tasks finish first. Press Ctrl-C again to cancel the run.\n");
        pause.abort();
      } else cancel.abort();
    };
    const lines = new ProgressLines(color, { file });
    const onProgress = (e: FlowEvent) => {
      tally.observe(e);
      if (values.quiet) return;
      if (values.json) return io.stdout(`${JSON.stringify(e)}\n`);
      // The engine's warning (printed once by the dispatcher, main.ts) says the workflow changed.
      if (e.type === "WorkflowChanged") return;
      const line = lines.format(e) ?? (values["no-tools"] ? null : formatToolEvent(e, color));
      if (line) io.stdout(`${line}\n`);
    };
    if (!values.serve) process.on("SIGINT", onSigint);
    try {
      const result = values.serve
        ? await serveRun(
            {
              workflow,
              file,
              workflowPath: path,
              input,
              logDir,
              port,
              host: values.host ?? "127.0.0.1",
              onEvent: onProgress,
              ...(values["run-id"] ? { runId: values["run-id"] } : {}),
              ...(values.resume ? { resume: true } : {}),
              ...(values.force ? { force: true } : {}),
              ...(maxConcurrency ? { maxConcurrency } : {}),
              ...(rootDir !== undefined ? { rootDir } : {}),
              ...((values.token ?? io.env.FLOW_API_KEY) ? { token: values.token ?? io.env.FLOW_API_KEY } : {}),
            },
            io,
          )
        : await followContinuations(workflow, {
        input,
        workflowPath: path,
        logDir,
        signal: cancel.signal,
        pauseSignal: pause.signal,
        ...(values["run-id"] ? { runId: values["run-id"] } : {}),
        ...(values.resume ? { resume: true } : {}),
        ...(values.force ? { force: true } : {}),
        ...(maxConcurrency ? { maxConcurrency } : {}),
        // A new run works in the CLI's working directory (the one prepared above); a resumed one where it recorded.
        ...(rootDir !== undefined ? { rootDir } : values.resume ? {} : { rootDir: io.cwd }),
        ...(values.wait ? { stayWhileWaiting: true } : {}),
        ...(values.hot ? { hot: true } : {}),
        ...(values.resume ? {} : { annotations: STARTED_BY_FLOW_UP }),
        onProgress,
      });
      if (values.json) io.stdout(`${JSON.stringify({ type: "result", ...result })}\n`);
      else {
        // A resumed run's agents also spent in the processes before this one: the store has the whole run's.
        const runTotal = values.resume && !values.quiet ? (await new FlowDb(workflow.db).getRunUsage(result.runId)).total : undefined;
        if (!values.quiet) io.stdout(`${tally.summary(result, Date.now() - startedAt, runTotal)}\n`);
        io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      }
      if (result.status.startsWith("waiting-") && !values.json && !values.quiet) {
        io.stdout(`The run is parked (${result.status}). Deliver what it waits for (flow approvals, flow approve, flow signal), then: flow up ${file} --run-id ${result.runId} --resume\n`);
      }
      return ["finished", "paused", "continued"].includes(result.status) || result.status.startsWith("waiting-") ? EXIT.ok : result.status === "cancelled" ? EXIT.cancelled : EXIT.failed;
    } finally {
      process.off("SIGINT", onSigint);
      // The workflow file opened its store; the run is over, so close it (a pg pool idles 10 s,
      // PGlite keeps timers): `flow up` exits as soon as its result is printed (issue 18).
      await bindingOf(workflow).store.close().catch(() => undefined);
    }
  },
};

/**
 * The run to its end through its continue-as-new chain: a run that continues as new (status
 * `continued`) is followed by its next run in this process, as a Gateway runs it, until one ends
 * otherwise (finished, failed, parked, paused, cancelled). Answers the last run's result.
 */
async function followContinuations(workflow: FlowWorkflow, options: RunOptions): Promise<RunResult> {
  let result = await runWorkflow(workflow, options);
  const { input: _input, runId: _runId, resume: _resume, force: _force, rootDir: _rootDir, ...next } = options;
  while (result.status === "continued" && result.nextRunId && !options.signal?.aborted && !options.pauseSignal?.aborted) {
    result = await runWorkflow(workflow, { ...next, runId: result.nextRunId, resume: true });
  }
  return result;
}

function parseInput(inline: string | undefined, file: string | undefined, cwd: string): Record<string, unknown> {
  if (inline !== undefined && file !== undefined) throw new UsageError("give --input or --input-file, not both.");
  const text = inline ?? (file !== undefined ? readInputFile(resolve(cwd, file)) : "{}");
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
    return value as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`the input must be a JSON object (${(e as Error).message}).`);
  }
}

function readInputFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read --input-file ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
}

/** The `--log-dir` to use (null for "none"), made and checked writable before the run starts. */
function logDirOf(option: string | undefined, cwd: string): string | null {
  if (option === "none") return null;
  const dir = resolve(cwd, option ?? ".flow/logs");
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(`--log-dir ${dir} is not a directory Flow can write to (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give another one, or --log-dir none.`);
  }
  return dir;
}
