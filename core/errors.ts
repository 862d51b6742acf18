/**
 * @module core/errors
 * The only place error codes exist. SPEC.md codes are listed verbatim; codes Flow adds are
 * documented one line each here and in docs/errors.md.
 *
 * Errors are matched on `code`, never on messages. A FlowError crosses process, worker and HTTP
 * boundaries as `{ code, message, details }` and is rebuilt with `FlowError.from`.
 */

/** Every error code, with the HTTP status an HTTP surface answers it with. */
export const ERROR_CODES = {
  // ---- SPEC.md codes ----
  PAYLOAD_TOO_LARGE: 413,
  WORKFLOW_PATH_OUTSIDE_ROOT: 403,
  TOOL_CONTENT_TOO_LARGE: 413,
  TOOL_PATCH_TOO_LARGE: 413,
  TOOL_PATCH_FAILED: 422,
  TOOL_GREP_FAILED: 500,
  TOOL_COMMAND_FAILED: 500,
  TOOL_NETWORK_DISABLED: 403,
  TOOL_GIT_REMOTE_DISABLED: 403,
  DB_WRITE_FAILED: 500,
  DB_QUERY_FAILED: 500,
  AGENT_CONFIG_INVALID: 400,
  TIME_TRAVEL_SIDE_EFFECT_BLOCKED: 409,
  GATEWAY_UNAVAILABLE: 503,
  HTTP_ERROR: 502,
  INVALID_GATEWAY_RESPONSE: 502,

  // ---- Flow's codes (docs/errors.md) ----
  /** An argument or option has the wrong shape or value. */
  INVALID_ARGUMENT: 400,
  /** `createFlow` was asked for a backend it does not serve (use `openFlowBackend`). */
  BACKEND_UNSUPPORTED: 400,
  /** An optional package the feature needs is not installed (or not loaded yet); the message names it and how to install it. */
  PACKAGE_MISSING: 501,
  /** A schema map is malformed (non-object schema, reserved or clashing name). */
  SCHEMA_INVALID: 400,
  /** A table of the store cannot hold what a schema declares (the message names table, column and fix). */
  SCHEMA_CONFLICT: 409,
  /** The run input does not fit the generated input table. */
  INPUT_INVALID: 400,
  /** A task produced a row that does not match its output schema. */
  TASK_OUTPUT_INVALID: 422,
  /** The store refused a task's (schema-valid) output row: a table constraint or trigger, or a value the database cannot hold. */
  TASK_OUTPUT_WRITE_FAILED: 500,
  /** A task's code threw; `cause` holds what it threw. */
  TASK_FAILED: 500,
  /** A task attempt ran longer than its `timeoutMs`. */
  TASK_TIMEOUT: 504,
  /** A task attempt gave no sign of life within its `heartbeatTimeoutMs`. */
  TASK_HEARTBEAT_TIMEOUT: 504,
  /** A task was cancelled (run cancelled, or removed from the tree). */
  TASK_CANCELLED: 409,
  /** The rendered tree is invalid (duplicate id, missing output, unknown dependency...). */
  RENDER_FAILED: 400,
  /** A Loop reached `maxIterations` with `onMaxReached: "fail"`. */
  LOOP_MAX_ITERATIONS: 409,
  /** The run id is unknown to the store. */
  RUN_NOT_FOUND: 404,
  /** A new run was started with the id of an existing run (pass `resume: true`). */
  RUN_EXISTS: 409,
  /** The run is owned by a live process; `force` takes it anyway. */
  RUN_ALREADY_RUNNING: 409,
  /** Another process took this run over (its claim heartbeat was seen as stale). */
  RUN_CLAIM_LOST: 409,
  /** The directory a run works in (recorded when it started) is gone; details.rootDir names it. */
  RUN_WORKSPACE_MISSING: 409,
  /** The workflow changed since the run started and the caller asked to refuse. */
  WORKFLOW_CHANGED: 409,
  /** A resume named a run of another `<Workflow name>` (pass `force` / `--force` to run it anyway). */
  WORKFLOW_MISMATCH: 409,
  /** A run status or node state change that its lifecycle table (core/engine/status.ts) does not allow. */
  INVALID_TRANSITION: 409,
  /** The node is unknown to the run. */
  NODE_NOT_FOUND: 404,
  /** A task output requested with `ctx.output` does not exist (use `outputMaybe`). */
  OUTPUT_NOT_FOUND: 404,
  /** A feature this build does not provide yet. */
  NOT_IMPLEMENTED: 501,
  /** The store could not be opened or migrated. */
  STORE_OPEN_FAILED: 500,
  /** A task's agent failed (see `cause`). */
  AGENT_FAILED: 502,
  /** An agent's `preflight` rejected: the task fails without retry. */
  AGENT_PREFLIGHT_FAILED: 424,
  /** Unexpected internal failure: a bug in Flow. */
  INTERNAL: 500,
  /** An approval was denied and its onDeny is `fail`. */
  APPROVAL_DENIED: 409,
  /** The user or token deciding an approval is not in its allowedUsers / allowedScopes. */
  APPROVAL_FORBIDDEN: 403,
  /** An approval or human task was already decided differently. */
  APPROVAL_ALREADY_DECIDED: 409,
  /** No node of the run waits for this delivery (wrong node, or not reached yet). */
  WAIT_NOT_FOUND: 404,
  /** A wait (approval, signal, event, human task) passed its timeoutMs with onTimeout `fail`. */
  WAIT_TIMEOUT: 504,
  /** A Subflow's child run failed (details carry the child run id and its error). */
  SUBFLOW_FAILED: 502,

  // ---- library components (issue 16, docs/components.md) ----
  /** A CheckSuite's verdict failed and its continueOnFail is false (details: suiteId, failed check names). */
  CHECK_SUITE_FAILED: 422,
  /** ClassifyAndRoute classified an item into a category it has no handler for (and no `default`). */
  ROUTE_UNKNOWN_CATEGORY: 422,
  /** An Aspects token budget or latency SLO was exceeded with onExceeded `fail` (details: aspectsId, used, limit). */
  ASPECT_LIMIT_EXCEEDED: 422,
  /** A hijack of a task whose CLI agent has no native session resume, or that has no session (or says hijack={false}). */
  HIJACK_UNSUPPORTED: 422,

  // ---- time travel (issue 15, docs/time-travel.md) ----
  /** A git (VCS) command failed or a snapshot pointer is unknown; details name the directory. */
  VCS_FAILED: 500,
  /** Another time travel of the run is in progress in a live process (wait and retry). */
  TIME_TRAVEL_IN_PROGRESS: 409,

  // ---- tools (issue 6, docs/tools.md) ----
  /** A tool was called with input that does not match its schema (or `bash` input limits). */
  TOOL_INPUT_INVALID: 400,
  /** A tool path, or a symlink on it, leads outside the sandbox `rootDir`. */
  TOOL_PATH_OUTSIDE_ROOT: 403,
  /** `read`/`edit` target (or `bash` `opts.cwd`) does not exist. */
  TOOL_FILE_NOT_FOUND: 404,
  /** `read` of a file larger than `maxOutputBytes`. */
  TOOL_FILE_TOO_LARGE: 413,
  /** `bash`/`grep`/HTTP call ran past its `timeoutMs`; a process group is killed with SIGKILL. */
  TOOL_TIMEOUT: 504,
  /** The executable of `bash` (or `rg` for `grep`) is not on `PATH`. */
  TOOL_COMMAND_NOT_FOUND: 404,
  /** An HTTP tool request got no response (DNS, refused connection, TLS, reset). */
  TOOL_HTTP_FAILED: 502,
  /** Warning code, never thrown: `bash` runs without OS network isolation (denylist only). */
  TOOL_NETWORK_ISOLATION_UNENFORCED: 500,
  /** An OpenAPI description cannot be read or is not OpenAPI 3.x. */
  OPENAPI_INVALID: 400,
  /** An OpenAPI feature Flow does not support (Swagger 2.0, cookie parameters, multipart bodies). */
  OPENAPI_UNSUPPORTED: 400,
  /** No operation with that operationId in the OpenAPI description. */
  OPENAPI_OPERATION_NOT_FOUND: 404,
  /** A file tool's path names a FIFO, socket or device: only regular files are opened (issue 18). */
  TOOL_FILE_NOT_REGULAR: 400,
  /** A file tool's path is longer than the file system allows (ENAMETOOLONG). */
  TOOL_PATH_TOO_LONG: 400,
  /** The file system refused a file tool access (EACCES, EPERM, read-only file system). */
  TOOL_PERMISSION_DENIED: 403,
  /** A file tool could not write: no space left on the device (ENOSPC, EDQUOT). */
  TOOL_DISK_FULL: 507,
  /** Warning code, never thrown: a run's file event log (`logDir`) cannot be written; the run goes on without it. */
  RUN_LOG_UNWRITABLE: 500,

  // ---- agents (docs/agents.md) ----
  /** Every agent of a task's chain hit a quota or rate limit; `details.retryAtMs` says when to try again. */
  AGENT_QUOTA_EXCEEDED: 429,
  /** A CLI agent's native session (resume id) no longer exists; the next call starts a new one. */
  AGENT_SESSION_LOST: 410,
  /** A CLI agent exited with a failure (details carry the exit code and the CLI's error text). */
  AGENT_CLI_ERROR: 502,
  /** A CLI agent in `rpc` mode was given file arguments, which that mode cannot take. */
  AGENT_RPC_FILE_ARGS: 400,
  /** A CLI agent ran longer than its hard `timeoutMs` (or the call's `timeout`). */
  PROCESS_TIMEOUT: 504,
  /** A CLI agent printed nothing on stdout or stderr for `idleTimeoutMs`. */
  PROCESS_IDLE_TIMEOUT: 504,
  /** A CLI agent's process group was killed because the call's abort signal fired. */
  PROCESS_ABORTED: 409,
  /** A CLI agent's executable could not be started (not on `PATH`, not executable). */
  PROCESS_SPAWN_FAILED: 502,

  // ---- memory and scorers (docs/memory.md, docs/scorers.md) ----
  /** `setNoteStatus` (or a `supersedes` edge) names a note id the store does not have. */
  NOTE_NOT_FOUND: 404,
  /** `searchNotes` for a namespace kind whose search was never enabled (call `enableNoteSearch(kind)`). */
  NOTE_SEARCH_NOT_ENABLED: 409,
  /** A message was saved to a thread id the store does not have (create it with `createThread`). */
  THREAD_NOT_FOUND: 404,
  /** The external memory engine answered with an error or could not be reached. */
  MEMORY_ENGINE_FAILED: 502,
  /** A scorer threw or returned something that is not a `ScoreResult` (an LLM judge gave no score). */
  SCORER_FAILED: 500,

  // ---- backends and store migration (docs/backends.md) ----
  /** The config file or environment is invalid: unknown backend, bad JSON or field, missing `${VAR}`, no connection for postgres. */
  BACKEND_CONFIG_INVALID: 400,
  /** `migrateFlowStore` found no SQLite store at the source path (details carry a marker path when it was migrated already). */
  STORE_NOT_FOUND: 404,
  /** The `pglite`/`postgres` target of a store migration already holds Flow tables with rows. */
  MIGRATION_TARGET_NOT_EMPTY: 409,
  /** A store migration failed and was rolled back; details name the phase and table. The SQLite store is untouched. */
  STORE_MIGRATION_FAILED: 500,
  /** The store's disk is full (SQLITE_FULL, SQLSTATE 53100, ENOSPC): nothing was written; free space, then resume the run. */
  STORE_FULL: 507,
  /** The store cannot be written (read-only file, directory, mount, replica or session): fix that, then resume the run. */
  STORE_READ_ONLY: 503,

  // ---- workspaces and hot reload (docs/workspaces.md, docs/hot-reload.md) ----
  /** A Worktree or Sandbox could not be prepared (rootDir not a git repository, git failed, copy failed); details name the command and its stderr. */
  WORKSPACE_FAILED: 500,
  /** An edited workflow file could not be hot-reloaded (syntax error, no workflow export, changed schemas); the previous build keeps running. */
  HOT_RELOAD_FAILED: 422,

  // ---- the flow CLI and deliveries (docs/cli.md, docs/waiting.md) ----
  /** A workflow file does not compile, or throws while it is loaded (details name the file and esbuild's errors). */
  WORKFLOW_LOAD_FAILED: 422,
  /** A delivery (signal, event, approval, human task) to a run that has ended (finished or continued): nothing will take it. */
  RUN_NOT_WAITING: 409,
  /** A decision or delivery for a wait its run's cancellation closed (or for a cancelled run): nothing is stored. */
  WAIT_CLOSED: 409,
  /** A decision for a wait (named by `askedAtMs`) that a rewind or retry reset: it asks again (details.askedAgainAt) or not yet; nothing is stored. */
  WAIT_RESET: 409,
  /** A signal's or event's payload does not match the schema recorded for the wait it is addressed to. */
  SIGNAL_PAYLOAD_INVALID: 422,

  // ---- hosting: domain API, server, serve app (docs/hosting.md) ----
  /** No credentials, or credentials the server does not accept (bearer token, `x-flow-key`). */
  UNAUTHORIZED: 401,
  /** The caller is authenticated but lacks the scope the method needs (`details.requiredScope`). */
  FORBIDDEN: 403,
  /** No RPC method of that name (check the method list in docs/hosting.md). */
  METHOD_NOT_FOUND: 404,
  /** No route for that path and HTTP method. */
  ROUTE_NOT_FOUND: 404,
  /** No workflow registered under that key (or loaded from that path). */
  WORKFLOW_NOT_FOUND: 404,
  /** No cron with that id. */
  CRON_NOT_FOUND: 404,
  /** A method or route this host does not offer yet, or not with this configuration (details say why); in the browser, a Gateway-only tool or CLI agent. */
  NOT_AVAILABLE: 501,

  // ---- hosting: the Node Gateway (docs/hosting.md) ----
  /** A browser `Origin` not listed in the gateway's `allowedOrigins` (HTTP request or WebSocket upgrade). */
  ORIGIN_NOT_ALLOWED: 403,
  /** A webhook delivery whose HMAC-SHA256 signature is missing or does not match the shared secret. */
  WEBHOOK_SIGNATURE_INVALID: 401,
  /** A WebSocket frame that is not JSON, not a known frame type, or sent before the `connect` handshake. */
  FRAME_INVALID: 400,
  /** The `connect` handshake asked for a protocol version this gateway does not speak. */
  PROTOCOL_UNSUPPORTED: 400,
  /** A WebSocket subscriber fell too far behind; the gateway dropped its subscription (`run.error`). */
  SUBSCRIBER_TOO_SLOW: 503,
  /** The gateway is at `maxConnections`, or is closing; try again later. */
  GATEWAY_OVERLOADED: 503,

  // ---- gateway client and data layer (docs/client.md) ----
  /** A call on a `GatewayClient`, connection or data client after its `close()` (or cut short by it). */
  GATEWAY_CLIENT_CLOSED: 499,

  // ---- team workspaces (docs/multiplayer.md) ----
  /** A shape request named a workspace this Gateway does not serve. */
  WORKSPACE_NOT_FOUND: 404,
  /** The caller is authenticated but not a member of the team workspace (an admin adds members). */
  WORKSPACE_NOT_MEMBER: 403,
  /** A shape request tried to set what the Gateway defines (`table`, `where`, `params`, `columns`, `secret`, ...). */
  SHAPE_PARAM_FORBIDDEN: 400,
  /** The Gateway's shape proxy could not reach Electric (`team.electricUrl`). */
  SYNC_UPSTREAM_UNAVAILABLE: 503,
  /** A write in a multiplayer workspace while its shapes are offline: refused, never queued, so nothing is silently lost. */
  WORKSPACE_OFFLINE: 503,
  /** A `flow-write-id` sent before by someone else, or for another request or body: nothing applied; a write id names one write (details.reason). */
  WRITE_ID_CONFLICT: 409,
} as const;

export type FlowErrorCode = keyof typeof ERROR_CODES;

/** The JSON form of a FlowError, as it travels across a boundary. */
export interface FlowErrorJson {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

const BRAND = Symbol.for("durable-flow.error");

/**
 * The one error class of Flow. Match on `code` (or `isFlowError(e, code)`), never on `message`.
 * @example
 * try { await runWorkflow(wf, { input: {} }); }
 * catch (e) { if (isFlowError(e, "INPUT_INVALID")) console.error(e.details); }
 */
export class FlowError extends Error {
  readonly code: FlowErrorCode;
  readonly details?: Record<string, unknown>;
  readonly [BRAND] = true;

  constructor(code: FlowErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FlowError";
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  /** HTTP status for this error's code. */
  get status(): number {
    return httpStatusOf(this.code);
  }

  toJSON(): FlowErrorJson {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  /**
   * Rebuild a FlowError from anything: a FlowError (returned as is), its JSON form, an Error
   * (wrapped as `fallback` with the error as `cause`) or any thrown value.
   */
  static from(value: unknown, fallback: FlowErrorCode = "INTERNAL"): FlowError {
    if (isFlowError(value)) return value;
    if (isErrorJson(value)) {
      const code = (value.code in ERROR_CODES ? value.code : fallback) as FlowErrorCode;
      return new FlowError(code, value.message, value.details);
    }
    if (value instanceof Error) return new FlowError(fallback, value.message, undefined, { cause: value });
    return new FlowError(fallback, typeof value === "string" ? value : safeString(value), undefined, { cause: value });
  }
}

/** True for a FlowError from any copy of this package (brand, not `instanceof`). */
export function isFlowError(value: unknown, code?: FlowErrorCode): value is FlowError {
  const ok = typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  return ok && (code === undefined || (value as FlowError).code === code);
}

/** HTTP status for a code; unknown codes are 500. */
export function httpStatusOf(code: string): number {
  return (ERROR_CODES as Record<string, number>)[code] ?? 500;
}

/** Serialize any thrown value as a FlowError JSON form (for rows, events and wire frames). */
export function errorToJson(value: unknown): FlowErrorJson {
  return FlowError.from(value).toJSON();
}

function isErrorJson(value: unknown): value is FlowErrorJson {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as FlowErrorJson).code === "string" &&
    typeof (value as FlowErrorJson).message === "string"
  );
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
