/**
 * @module node/cli/commands/serve
 * `flow serve [dir]`: starts a Gateway for a folder of workflow files (each file's workflow is
 * registered under the file's name without extension) and prints one line with its URL. On
 * start it picks up runs a previous gateway left behind; Ctrl-C (or SIGTERM) pauses the runs
 * in flight, so the next `flow serve` resumes them. See docs/hosting.md "flow serve".
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { basename, extname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isFlowError } from "../../../core/errors.js";
import { Gateway, untilStopSignal } from "../../server/index.js";
import { type CliCommand, EXIT, UsageError } from "../command.js";
import { loadWorkflow } from "../load-workflow.js";

const USAGE = `Usage: flow serve [dir] [options]

Starts a Gateway (HTTP RPC, WebSocket events, cron, webhooks; docs/hosting.md) for the
workflow files in dir (default: the current directory). Each file's workflow is registered
under the file name without its extension. Prints the URL once listening.

Options:
  --port <n>         TCP port (default 7331; 0 picks a free one)
  --host <host>      Interface to bind (default 127.0.0.1)
  --socket <path>    Listen on a Unix socket instead of a port
  --token <token>    Require this bearer token (default: FLOW_API_KEY; none: no auth)`;

const EXTENSIONS = new Set([".ts", ".tsx", ".mts", ".js", ".mjs"]);

/** A default export, or one named `workflow`, in a module's text: what `loadWorkflow` takes. */
const EXPORTS_WORKFLOW = /\bexport\s+default\b|\bexport\s+(?:const|let|var|function)\s+workflow\b|\bexport\s*\{[^}]*\b(?:default|workflow)\b[^}]*\}/;

/** A folder's files that `flow serve` imports, and the scripts it leaves alone. */
export interface FolderWorkflows {
  /** Scripts that are not tests, declarations or tools' config files, and export a default or `workflow`: sorted. */
  files: string[];
  /** Scripts that export neither: never imported, since importing one runs it (the quickstart's `app.ts` runs a workflow). */
  scripts: string[];
}

/**
 * The workflow files of a folder. Tools' config files (`vitest.config.ts`, `vite.config.mjs`)
 * are left out by name, since importing one runs the tool's code; scripts that export no
 * workflow, by a look at their text, for the same reason.
 */
export function workflowFilesIn(dir: string): FolderWorkflows {
  const candidates = readdirSync(dir)
    .filter((f) => EXTENSIONS.has(extname(f)) && !/\.(test|spec|config)\.[^.]+$/.test(f) && !f.endsWith(".d.ts") && !f.startsWith("_"))
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .sort();
  const files: string[] = [];
  const scripts: string[] = [];
  for (const path of candidates) (EXPORTS_WORKFLOW.test(readFileSync(path, "utf8")) ? files : scripts).push(path);
  return { files, scripts };
}

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Serve a folder of workflows over a Gateway (RPC, WebSocket, cron, webhooks)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { port: { type: "string" }, host: { type: "string" }, socket: { type: "string" }, token: { type: "string" } },
    });
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError("--port must be a port number (0 picks a free one).");
    const token = values.token ?? io.env.FLOW_API_KEY;
    const gateway = new Gateway({ workspaceRoot: io.cwd, ...(token ? { auth: { mode: "token", tokens: { [token]: { role: "operator", scopes: ["*"], tokenId: "serve" } } } } : {}) });
    const keys: string[] = [];
    /** Files whose workflow did not load, and the first such error. */
    const broken: string[] = [];
    let firstLoadError: unknown;
    const { files, scripts } = workflowFilesIn(dir);
    for (const script of scripts) io.stderr(`flow serve: skipping ${script}: it exports no default and no \`workflow\` (not imported)\n`);
    for (const file of files) {
      const key = basename(file, extname(file));
      try {
        gateway.register(key, (await loadWorkflow(file, io.cwd)).workflow);
        keys.push(key);
      } catch (error) {
        // A helper module in the folder exports no workflow: say so and go on.
        if (isFlowError(error, "INVALID_ARGUMENT")) {
          io.stderr(`flow serve: skipping ${file}: ${error.message}\n`);
          continue;
        }
        // A file that does not compile or throws when loaded (one being edited) keeps the
        // others from nobody: it is left out, said loudly, and named on the listening line.
        if (!isFlowError(error, "WORKFLOW_LOAD_FAILED")) throw error;
        firstLoadError ??= error;
        broken.push(key);
        io.stderr(`flow serve: NOT serving ${file}: ${error.code}: ${error.message}\n`);
      }
    }
    if (keys.length === 0 && firstLoadError) throw firstLoadError;
    if (keys.length === 0) throw new UsageError(`no workflow files in ${dir} (each must export default a workflow made with flow(...)).`);
    const server = await gateway.listen(values.socket ? { path: resolve(io.cwd, values.socket) } : { port: port ?? 7331, host: values.host ?? "127.0.0.1" });
    const address = server.address();
    const url = typeof address === "string" ? `ws+unix:${address}` : `http://${hostFor((address as AddressInfo).address)}:${(address as AddressInfo).port}`;
    io.stdout(`Flow gateway listening on ${url} (workflows: ${keys.join(", ")}${broken.length ? `; not served, see above: ${broken.join(", ")}` : ""})\n`);
    await untilStopSignal(() => gateway.close({ runs: "pause" }), () => io.stderr("flow serve: pausing runs, one moment...\n"));
    return EXIT.ok;
  },
};

function hostFor(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}
