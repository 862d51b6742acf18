/**
 * @module node/cli/commands/openapi
 * `flow openapi list <spec>`: prints the operations of an OpenAPI 3.x description (a file, or an
 * http(s) URL), one per line: method, path, operationId, summary. The ids are the names
 * `createOpenApiTools` gives the tools (docs/tools.md "OpenAPI tools").
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { listOperations, loadOpenApiSpec } from "../../tools/index.js";
import { type CliCommand, EXIT, UsageError } from "../command.js";

const USAGE = `Usage: flow openapi list <spec> [options]

Lists the operations of an OpenAPI 3.0/3.1 description (JSON or YAML file, or http(s) URL):
method, path, operationId (the tool name createOpenApiTools uses) and summary.

Options:
  --json    Print a JSON array of { operationId, method, path, summary }`;

export const openapiCommand: CliCommand = {
  name: "openapi",
  summary: "List the operations of an OpenAPI description",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: "boolean" } } });
    const [sub, spec, ...extra] = positionals;
    if (sub !== "list") throw new UsageError(sub ? `unknown subcommand "${sub}"` : "missing subcommand");
    if (!spec) throw new UsageError("missing <spec>: a file path or an http(s) URL");
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    const input = /^https?:\/\//i.test(spec) ? spec : resolve(io.cwd, spec);
    const operations = listOperations(await loadOpenApiSpec(input));
    if (values.json) {
      io.stdout(`${JSON.stringify(operations, null, 2)}\n`);
      return EXIT.ok;
    }
    if (operations.length === 0) {
      io.stdout("No operations.\n");
      return EXIT.ok;
    }
    const pathWidth = Math.min(60, Math.max(...operations.map((o) => o.path.length)));
    const idWidth = Math.min(48, Math.max(...operations.map((o) => o.operationId.length)));
    for (const o of operations) {
      const line = `${o.method.toUpperCase().padEnd(7)}${o.path.padEnd(pathWidth)}  ${o.operationId.padEnd(idWidth)}  ${o.summary}`;
      io.stdout(`${line.trimEnd()}\n`);
    }
    io.stdout(`${operations.length} operation${operations.length === 1 ? "" : "s"}\n`);
    return EXIT.ok;
  },
};
