/**
 * @module node/cli/commands/memory
 * `flow memory ...`: list, get, set and search facts and notes of a store, through the same
 * `createMemoryStore` a workflow uses. See docs/memory.md ("CLI").
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createMemoryStore, isNamespaceKind, type MemoryStore, NAMESPACE_KINDS } from "../../../core/memory/index.js";
import { createFlow } from "../../create-flow.js";
import { openFlowBackend } from "../../open-flow-backend.js";
import { type CliCommand, type CliIO, EXIT, UsageError } from "../command.js";
import { DB_DEFAULT } from "./wait-cli.js";

const USAGE = `Usage: flow memory <subcommand> [arguments] [options]

Facts:
  facts [namespace]                  List live facts (of one namespace, or all)
  get <namespace> <key>              Print a fact's value (exit 1 when missing or expired)
  set <namespace> <key> <value>      Set a fact; the value is JSON, or else taken as a string
  delete <namespace> <key>           Delete a fact

Notes:
  notes <namespace>                  List notes under the read contract, oldest first
  note <namespace> <body>            Save a note (prints it)
  status <noteId> <status>           Set a note's status (accepted, pending, rejected, ...)
  search <kind> <query>              Search notes of a namespace kind, best first

A namespace is written kind:id (kind: ${NAMESPACE_KINDS.join(", ")}); text without a known kind
prefix is a global namespace.

Options:
  --db <path>            SQLite store file (${DB_DEFAULT})
  --ttl <ms>             set: expire the fact after this many milliseconds
  --kind <label>         note: the note's kind label; notes/search: only this label
  --tag <tag>            note: a tag (repeatable)
  --supersedes <id>      note: a note this one replaces (repeatable)
  --status <status>      note: initial status; notes/search: only this status ("any" for all)
  --all                  notes/search: include superseded notes
  --namespace <ns>       search: only this namespace
  --limit <n>            search: how many notes (default 10)
  --enable               search: enable search for the kind first (idempotent)
  --json                 Print JSON`;

const OPTIONS = {
  db: { type: "string" },
  ttl: { type: "string" },
  kind: { type: "string" },
  tag: { type: "string", multiple: true },
  supersedes: { type: "string", multiple: true },
  status: { type: "string" },
  all: { type: "boolean" },
  namespace: { type: "string" },
  limit: { type: "string" },
  enable: { type: "boolean" },
  json: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function need(args: string[], count: number, what: string): string[] {
  if (args.length < count) throw new UsageError(`${what} needs ${count} argument${count > 1 ? "s" : ""}.`);
  return args;
}

function positiveInt(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, not "${text}".`);
  return n;
}

/** The value of `set`: JSON when it parses, otherwise the text itself. */
function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function noteFilter(values: Values) {
  return {
    ...(values.status !== undefined ? { status: values.status } : {}),
    ...(values.all ? { includeSuperseded: true } : {}),
    ...(values.kind !== undefined ? { kind: values.kind } : {}),
  };
}

async function dispatch(memory: MemoryStore, sub: string, args: string[], values: Values, io: CliIO): Promise<number> {
  const print = (value: unknown, text: string) => io.stdout(values.json ? `${JSON.stringify(value, null, 2)}\n` : text);
  switch (sub) {
    case "facts": {
      const facts = args[0] !== undefined ? await memory.listFacts(args[0]) : await memory.listAllFacts();
      print(facts, facts.length ? facts.map((f) => `${f.namespace}  ${f.key} = ${f.valueJson}${f.ttlMs ? `  (ttl ${f.ttlMs} ms)` : ""}\n`).join("") : "No facts.\n");
      return EXIT.ok;
    }
    case "get": {
      const [ns, key] = need(args, 2, "get");
      const fact = await memory.getFact(ns!, key!);
      if (!fact) {
        io.stderr(`flow memory: no fact "${key}" in ${ns}.\n`);
        return EXIT.failed;
      }
      print(fact, `${fact.valueJson}\n`);
      return EXIT.ok;
    }
    case "set": {
      const [ns, key, value] = need(args, 3, "set");
      const fact = await memory.setFact(ns!, key!, parseValue(value!), positiveInt(values.ttl, "ttl") ?? null);
      print(fact, `${fact.namespace}  ${fact.key} = ${fact.valueJson}\n`);
      return EXIT.ok;
    }
    case "delete": {
      const [ns, key] = need(args, 2, "delete");
      await memory.deleteFact(ns!, key!);
      return EXIT.ok;
    }
    case "notes": {
      const [ns] = need(args, 1, "notes");
      const notes = await memory.listNotes(ns!, noteFilter(values));
      print(notes, notes.length ? notes.map((n) => `${n.id}  [${n.status}]${n.kind ? ` (${n.kind})` : ""}  ${n.body}\n`).join("") : "No notes.\n");
      return EXIT.ok;
    }
    case "note": {
      const [ns, ...body] = need(args, 2, "note");
      const note = await memory.saveNote({
        namespace: ns!,
        body: body.join(" "),
        ...(values.kind !== undefined ? { kind: values.kind } : {}),
        ...(values.tag ? { tags: values.tag } : {}),
        ...(values.status !== undefined ? { status: values.status } : {}),
        ...(values.supersedes ? { supersedes: values.supersedes } : {}),
        author: "cli",
      });
      print(note, `${note.id}\n`);
      return EXIT.ok;
    }
    case "status": {
      const [id, status] = need(args, 2, "status");
      const note = await memory.setNoteStatus(id!, status!);
      print(note, `${note.id}  [${note.status}]\n`);
      return EXIT.ok;
    }
    case "search": {
      const [kind, ...query] = need(args, 2, "search");
      if (!isNamespaceKind(kind)) throw new UsageError(`"${kind}" is not a namespace kind (${NAMESPACE_KINDS.join(", ")}).`);
      if (values.enable) await memory.enableNoteSearch(kind);
      const filter = { ...noteFilter(values), ...(values.namespace !== undefined ? { namespace: values.namespace } : {}) };
      const notes = await memory.searchNotes(kind, query.join(" "), positiveInt(values.limit, "limit"), filter);
      print(notes, notes.length ? notes.map((n, i) => `${i + 1}. ${n.id}  ${n.namespace}  ${n.body.replace(/\s+/g, " ").slice(0, 120)}\n`).join("") : "No matching notes.\n");
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown subcommand "${sub}".`);
  }
}

export const memoryCommand: CliCommand = {
  name: "memory",
  summary: "List, get, set and search memory facts and notes",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    const [sub, ...args] = positionals;
    if (!sub) throw new UsageError("a subcommand is required.");
    // Memory commands may write (facts, notes): a missing SQLite store is created.
    if (values.db !== undefined) return dispatch(createMemoryStore(createFlow({}, { dbPath: resolve(io.cwd, values.db) }).db), sub, args, values, io);
    const api = await openFlowBackend(undefined, { cwd: io.cwd, env: io.env });
    try {
      return await dispatch(createMemoryStore(api.db), sub, args, values, io);
    } finally {
      await api.close?.();
    }
  },
};
