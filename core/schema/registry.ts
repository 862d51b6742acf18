/**
 * @module core/schema/registry
 * The schema registry of one workflow store: schema key -> SQL table, zod schema, columns and
 * Drizzle table. `OutputTarget`s (schema, Drizzle table or string key) resolve here.
 */
import { FlowError } from "../errors.js";
import type { Dialect } from "../store/index.js";
import { type AnyObjectSchema, type ColumnSpec, columnsOf, snakeCase } from "./columns.js";
import { createTableSql, drizzleTableOf, type FlowTable } from "./tables.js";

/** The reserved schema key typing the run input. */
export const INPUT_KEY = "input";

/** One registered schema. */
export interface TableEntry {
  key: string;
  tableName: string;
  schema: AnyObjectSchema;
  columns: ColumnSpec[];
  table: FlowTable;
  isInput: boolean;
}

/** How a registry names its SQL tables. */
export interface RegistryOptions {
  /**
   * Prepended to every SQL table name of this schema map (`review_` + `finding` = `review_finding`),
   * for workflows that want tables of their own in a shared store. Default none: a table is shared
   * by the workflows that declare its key (docs/store.md).
   */
  tablePrefix?: string;
  /** A name for this workflow, used to suggest a prefix in conflict messages. */
  nameHint?: string;
}

/** The registry options of a factory's options. */
export function registryOptions(opts: { tablePrefix?: string; readableName?: string }): RegistryOptions {
  return { ...(opts.tablePrefix !== undefined ? { tablePrefix: opts.tablePrefix } : {}), ...(opts.readableName ? { nameHint: opts.readableName } : {}) };
}

export class SchemaRegistry {
  readonly entries = new Map<string, TableEntry>();
  /** The prefix a SCHEMA_CONFLICT message suggests. */
  readonly tablePrefixHint: string;
  private readonly byObject = new Map<object, TableEntry>();
  private readonly byTableName = new Map<string, TableEntry>();

  constructor(
    schemas: Record<string, AnyObjectSchema>,
    readonly dialect: Dialect,
    readonly options: RegistryOptions = {},
  ) {
    const prefix = options.tablePrefix ?? "";
    if (prefix && !/^[A-Za-z][A-Za-z0-9_]*$/.test(prefix)) {
      throw new FlowError("SCHEMA_INVALID", `tablePrefix "${prefix}" must start with a letter and hold only letters, digits and underscores.`, { tablePrefix: prefix });
    }
    this.tablePrefixHint = prefix || `${snakeCase(options.nameHint ?? "my_workflow").replace(/[^a-z0-9_]/g, "_")}_`;
    if (typeof schemas !== "object" || schemas === null) {
      throw new FlowError("SCHEMA_INVALID", "The schema map must be an object of name to z.object(...).");
    }
    for (const [key, schema] of Object.entries(schemas)) {
      if (key.startsWith("_flow")) {
        throw new FlowError("SCHEMA_INVALID", `Schema key "${key}" is reserved: names starting with _flow belong to Flow's tables.`, { key });
      }
      const tableName = prefix + snakeCase(key);
      const clash = this.byTableName.get(tableName);
      if (clash) {
        throw new FlowError("SCHEMA_INVALID", `Schema keys "${clash.key}" and "${key}" both map to table "${tableName}"; rename one.`, { key });
      }
      const isInput = key === INPUT_KEY;
      const columns = columnsOf(key, schema);
      const entry: TableEntry = { key, tableName, schema, columns, table: drizzleTableOf(dialect, tableName, columns, isInput), isInput };
      this.entries.set(key, entry);
      this.byTableName.set(tableName, entry);
      this.byObject.set(schema, entry);
      this.byObject.set(entry.table, entry);
    }
  }

  /** The input table, when the reserved `input` key is declared. */
  get input(): TableEntry | undefined {
    return this.entries.get(INPUT_KEY);
  }

  /** Resolves an OutputTarget (schema object, Drizzle table, schema key or SQL table name). */
  resolve(target: unknown, where = "output"): TableEntry {
    const entry =
      typeof target === "string" ? (this.entries.get(target) ?? this.byTableName.get(target))
      : typeof target === "object" && target !== null ? this.byObject.get(target)
      : undefined;
    if (!entry || entry.isInput) {
      const known = [...this.entries.keys()].filter((k) => k !== INPUT_KEY).join(", ");
      throw new FlowError(
        "RENDER_FAILED",
        `${where}: ${describe(target)} is not an output of this workflow. Use one of outputs.<key> (${known || "none declared"}), its table, or its key.`,
        { target: describe(target) },
      );
    }
    return entry;
  }

  /** The DDL creating every user table. */
  ddl(): string[] {
    return [...this.entries.values()].map((e) => createTableSql(this.dialect, e.tableName, e.columns, e.isInput));
  }

  /** A stable description of all tables, part of the workflow hash. */
  signature(): string {
    return [...this.entries.values()]
      .map((e) => `${e.tableName}(${e.columns.map((c) => `${c.column}:${c.kind}${c.nullable ? "?" : ""}`).join(",")})`)
      .join(";");
  }
}

function describe(target: unknown): string {
  if (typeof target === "string") return `"${target}"`;
  if (target === undefined) return "nothing";
  return typeof target === "object" && target !== null ? "an object that is not a registered schema or table" : String(target);
}
