/**
 * @module node/cli/commands/up-serve
 * `flow up <file> --serve`: runs the workflow inside a Gateway that serves it (docs/hosting.md,
 * "flow up --serve"), so the run can be watched, steered and answered over HTTP, WebSocket and
 * the gateway client while this terminal shows its progress. The process stays while the run
 * waits (an approval or signal delivered through the gateway, or by `flow approve` from another
 * process, resumes it) and exits when the run ends: a run that continues as new, when the last
 * run of its chain ends; while a client is connected, `SERVE_END_GRACE_MS` later, so an open
 * console shows the end. Ctrl-C pauses the run and stops serving.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, extname, resolve } from "node:path";
import type { FlowEvent, FlowWorkflow, RunResult } from "../../../core/engine/index.js";
import { FlowDb } from "../../../core/engine/index.js";
import { TERMINAL_EVENT_TYPES } from "../../../core/api/index.js";
import { ANNOTATIONS } from "../../../core/protocol.js";
import { Gateway } from "../../server/index.js";
import type { CliIO } from "../command.js";

/**
 * How long the gateway stays after the run ends while a client is connected: a console that
 * watched the run learns of its end from the stream and then reads the run, which it could not
 * once the gateway had closed (it showed the run running, its Gateway unreachable).
 */
export const SERVE_END_GRACE_MS = 1_500;

/** What `flow up` parsed, for a served run. */
export interface ServedRunOptions {
  workflow: FlowWorkflow;
  /** The workflow file as given (the gateway key is its name without extension). */
  file: string;
  workflowPath: string;
  input: Record<string, unknown>;
  runId?: string;
  resume?: boolean;
  /** The directory a new run works in. */
  rootDir?: string;
  force?: boolean;
  maxConcurrency?: number;
  logDir: string | null;
  port: number;
  host: string;
  /** Bearer token the gateway requires (none: no auth). */
  token?: string;
  /** Called with each event of the run, stored ones first. */
  onEvent(event: FlowEvent): void;
}

/** The provenance of the runs `flow up` starts (SPEC `startedBy`): the console's "Started by". */
export const STARTED_BY_FLOW_UP = { [ANNOTATIONS.startedBy]: JSON.stringify({ harness: "flow up" }) };

/** Serves the workflow, runs it (or resumes it), and resolves with the run's result when it ends or is paused. */
export async function serveRun(opts: ServedRunOptions, io: CliIO): Promise<RunResult> {
  const key = basename(opts.file, extname(opts.file));
  // Every run this gateway starts works where the served run does (`--root-dir`); a workflow UI's
  // entry stays the project's, resolved against the working directory as without it.
  if (opts.rootDir !== undefined && opts.workflow.ui?.kind === "ui" && opts.workflow.ui.entry !== undefined) {
    opts.workflow.ui = { ...opts.workflow.ui, entry: resolve(io.cwd, opts.workflow.ui.entry) };
  }
  const gateway = new Gateway({
    workspaceRoot: opts.rootDir ?? io.cwd,
    ...(opts.token ? { auth: { mode: "token", tokens: { [opts.token]: { role: "operator", scopes: ["*"], tokenId: "up-serve" } } } } : {}),
  });
  gateway.register(key, opts.workflow);
  let stopping = false;
  let server: Server | undefined;
  try {
    server = await gateway.listen({ port: opts.port, host: opts.host });
    const address = server.address() as AddressInfo;
    const host = address.address.includes(":") ? `[${address.address}]` : address.address;
    const runOptions = {
      workflowPath: opts.workflowPath,
      ...(opts.rootDir !== undefined ? { rootDir: opts.rootDir } : {}),
      logDir: opts.logDir,
      ...(opts.maxConcurrency ? { maxConcurrency: opts.maxConcurrency } : {}),
    };
    const { runId } = opts.resume
      ? await gateway.host.resumeRun(opts.runId!, { ...(opts.force ? { force: true } : {}) })
      : await gateway.host.startRun({ workflowKey: key, input: opts.input, ...(opts.runId ? { runId: opts.runId } : {}), options: runOptions, annotations: STARTED_BY_FLOW_UP });
    io.stderr(`Flow gateway serving ${key} on http://${host}:${address.port} (run ${runId}); Ctrl-C pauses the run and stops serving\n`);
    let ended!: () => void;
    const stop = () => {
      process.off("SIGINT", stop);
      stopping = true;
      io.stderr("\nPausing the run and closing the gateway.\n");
      void gateway.close({ runs: "pause" }).then(ended);
    };
    process.on("SIGINT", stop);
    // The run, and the runs it continues as (the gateway starts each one at once), to the end of the chain.
    for (let current = runId; ; ) {
      const end = new Promise<void>((resolve) => (ended = resolve));
      const unsubscribe = await gateway.host.subscribeRunEvents(current, 0, (event) => {
        opts.onEvent(event);
        if (TERMINAL_EVENT_TYPES.has(event.type)) ended();
      });
      await end;
      unsubscribe();
      // The run's session commits its last event before it returns: wait for it, then read the run.
      await gateway.host.activeRun(current)?.done;
      const run = await new FlowDb(opts.workflow.db).requireRun(current);
      if (!stopping && run.status === "continued" && run.nextRunId) {
        current = run.nextRunId;
        continue;
      }
      process.off("SIGINT", stop);
      const result: RunResult = { runId: current, status: run.status };
      if (run.output !== null && run.output !== undefined) result.output = run.output;
      if (run.error) result.error = run.error as RunResult["error"];
      if (run.nextRunId) result.nextRunId = run.nextRunId;
      return result;
    }
  } finally {
    if (!stopping) {
      if (server && (await openConnections(server)) > 0) await new Promise((resolve) => setTimeout(resolve, SERVE_END_GRACE_MS));
      await gateway.close({ runs: "pause" });
    }
  }
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}
