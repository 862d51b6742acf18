import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Protocol names live in one place (core/api/contract.ts for routes, headers and annotation
// keys; core/protocol.ts TABLES for tables), so a rename is one edit and the server and its
// clients cannot drift. Checked on the product's source (tests, fixtures, e2e/ and bench/
// are test code: they spell routes on purpose), comments left out.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const AREAS = ["core", "node", "sync", "browser", "ui"];

function sources(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = name === "fixtures" ? out : out.concat(sources(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test(-d)?\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** The code of a file without its comments (`//` after a URL scheme's colon is kept). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
const files = AREAS.flatMap((area) => sources(join(ROOT, area))).map((f) => ({ path: relative(ROOT, f), code: code(readFileSync(f, "utf8")) }));

/** Other services' `/v1/` routes: Electric's shape endpoint, Hindsight's memory banks. */
const FOREIGN_ROUTES = /\/v1\/(shape|default\/)/g;

/**
 * Modules that still spell `_flow_*` in their SQL. The list only shrinks: a new module uses
 * TABLES (or MEMORY_TABLES) and interpolates it. Exempt, and why:
 */
const SPELLS_TABLES = new Set([
  // the definitions and the migrations that create the tables (and the store contract suite,
  // which checks the schema the migrations made): a schema is written out where it is defined
  "core/protocol.ts",
  "core/memory/context.ts",
  "core/store/migrations.ts",
  "core/store/contract.ts",
  // creates and names its own per-kind full-text tables and indexes (`_flow_note_fts_<kind>`)
  "core/memory/note-search.ts",
  // the run's statements, being changed for the status writes (issue #24) while the rest of
  // core/engine/ was converted; the next module to convert
  "core/engine/run-sql.ts",
]);

describe("static analysis", () => {
  it("spells a /v1/ route only in the contract (core/api/contract.ts)", () => {
    const offenders = files.filter((f) => f.path !== "core/api/contract.ts" && f.code.replace(FOREIGN_ROUTES, "").includes("/v1/")).map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("spells a _flow_* table name only where the tables are defined, or in the exempt SQL above", () => {
    // `<user table>__flow_rebuild` (core/schema/ensure-tables.ts) is a suffix, not a table of ours.
    const spelling = files.filter((f) => /(?<!\w)_flow_[a-z]/.test(f.code)).map((f) => f.path);
    expect(spelling.filter((p) => !SPELLS_TABLES.has(p))).toEqual([]);
    // a converted module leaves the list
    expect([...SPELLS_TABLES].filter((p) => !spelling.includes(p))).toEqual([]);
  });

  it("spells a flow:* run annotation key only in core/protocol.ts's ANNOTATIONS (the contract re-exports it)", () => {
    // core/protocol.ts's TAGS has the host element `flow:workflow`, a tag and not an annotation.
    const owners = ["core/protocol.ts"];
    const offenders = files.filter((f) => !owners.includes(f.path) && /["'`]flow:(workflow|startedBy|cron|webhook|cancelledBy)["'`]/.test(f.code)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});
