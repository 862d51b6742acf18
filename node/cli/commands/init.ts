/**
 * @module node/cli/commands/init
 * `flow init [dir]`: scaffolds a new Flow project (docs/package.md): package.json with
 * scripts, tsconfig.json for Flow's JSX, a first workflow, its test and a `.gitignore` for
 * `.flow/`. It writes files only; `npm install` is the user's next step.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { FlowError } from "../../../core/errors.js";
import { type CliCommand, EXIT, UsageError } from "../command.js";
import { mergePackageJson, packageNameFor, projectFiles, type ProjectTemplateInput } from "../init/project-files.js";

const USAGE = `Usage: flow init [dir] [options]

Creates a Flow project in dir (default: the current directory): package.json, tsconfig.json,
workflow.tsx, agent.tsx, workflow.test.ts, vitest.config.ts, .gitignore and README.md. Then:
npm install && npm test.
In a directory with a package.json already, its scripts and dependencies are added to it
(what it has is kept, such as a durable-flow installed from a tarball).

Options:
  --name <name>   Package name (default: the directory's name)
  --force         Overwrite files that already exist`;

interface FlowPackageJson {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** durable-flow's own package.json: its version and the versions it was tested with. */
function templateVersions(): Pick<ProjectTemplateInput, "flowVersion" | "versions"> {
  const pkg = createRequire(import.meta.url)("durable-flow/package.json") as FlowPackageJson;
  const all = { ...pkg.dependencies, ...pkg.devDependencies };
  const pick = (name: string) => all[name] ?? "latest";
  return { flowVersion: pkg.version, versions: { zod: pick("zod"), typescript: pick("typescript"), vitest: pick("vitest"), "@types/node": pick("@types/node") } };
}

export const initCommand: CliCommand = {
  name: "init",
  summary: "Create a new Flow project",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { name: { type: "string" }, force: { type: "boolean" } } });
    if (positionals.length > 1) throw new UsageError(`expected at most one directory, got ${positionals.join(" ")}.`);
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const files = projectFiles({ name: values.name ?? packageNameFor(basename(dir)), ...templateVersions() });
    const pkgPath = join(dir, "package.json");
    const merged = existsSync(pkgPath) && !values.force ? mergePackageJson(readFileSync(pkgPath, "utf8"), files["package.json"]!) : undefined;
    if (merged !== undefined) files["package.json"] = merged;
    const existing = Object.keys(files).filter((file) => file !== "package.json" && existsSync(join(dir, file)));
    if (existing.length && !values.force) {
      throw new FlowError("INVALID_ARGUMENT", `${dir} already has ${existing.join(", ")}. Choose a new directory, or pass --force to overwrite them.`, { dir, existing });
    }
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const cd = relative(io.cwd, dir);
    io.stdout(
      [
        `Created a Flow project in ${dir}: ${Object.keys(files).join(", ")}${merged !== undefined ? " (package.json: scripts and dependencies added, yours kept)" : ""}.`,
        "",
        "Next:",
        ...(cd ? [`  cd ${cd}`] : []),
        "  npm install",
        "  npm test     type-checks and runs workflow.test.ts",
        "  npm start    runs workflow.tsx (flow up)",
        "",
      ].join("\n"),
    );
    return EXIT.ok;
  },
};
