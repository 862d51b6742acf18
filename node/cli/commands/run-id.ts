/**
 * @module node/cli/commands/run-id
 * A run id as people copy it: whole, or shortened as the app and the CLI show it in lists (the
 * start of a generated id, `654f2834`; the app's `start…end` of a long one, `cron-night…480000`
 * or `654f2834…/draft@0`, also typed with `...`). A shortened id names the one run of the store
 * it fits, as git takes a commit's short hash; one that fits several runs is a usage error that
 * lists them. See docs/cli.md ("Run ids").
 */
import { TABLES } from "../../../core/protocol.js";
import type { FlowDb } from "../../../core/engine/index.js";
import { UsageError } from "../command.js";

/** Characters a shortened run id needs at least (start and end together), as git asks of a short hash. */
export const MIN_SHORT_RUN_ID = 4;
/** Runs named in the message of an ambiguous id. */
const LISTED = 5;

/**
 * The whole id of the run `given` names in `db`: itself where such a run exists or nothing fits
 * it (the command then says RUN_NOT_FOUND), else the one run whose id starts and ends as it does.
 * @example
 * const runId = await resolveRunId(db, "654f2834"); // "654f2834-9618-462d-8845-de0b5692f9a0"
 */
export async function resolveRunId(db: FlowDb, given: string): Promise<string> {
  if (await db.getRun(given)) return given;
  const [start = "", end = "", ...more] = given.split(/…|\.\.\./);
  if (more.length > 0 || start.length + end.length < MIN_SHORT_RUN_ID) return given;
  // LIKE narrows the rows (case-insensitive in SQLite); the test below is exact.
  const rows = await db.store.query<{ run_id: string }>(`SELECT run_id FROM ${TABLES.runs} WHERE run_id LIKE ? ESCAPE '\\' ORDER BY created_at_ms DESC`, [`${escapeLike(start)}%${escapeLike(end)}`]);
  const fits = rows.map((r) => String(r.run_id)).filter((id) => id.length >= start.length + end.length && id.startsWith(start) && id.endsWith(end));
  if (fits.length <= 1) return fits[0] ?? given;
  const listed = fits.slice(0, LISTED).join(", ");
  throw new UsageError(`run id "${given}" fits ${fits.length} runs (${listed}${fits.length > LISTED ? ", ..." : ""}); give more of it.`);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
