/**
 * @module core/engine/refused-outputs
 * Output rows the store refused. A task's row is validated by its zod schema, yet the store may
 * still refuse it: a constraint or trigger a user added to the table, a value PostgreSQL cannot
 * hold (a NUL character in text), a column another tool changed. The row is written in the
 * step's batch with the attempt's other statements, so a refusal rolls the whole batch back.
 * Without help the attempt would stay `in-progress` and the run `running`, and every resume
 * would fail the same way.
 *
 * So each settled success is recorded as a unit (its span of statements and events, its output
 * row first). When a batch is refused, each unit's output row is tried alone in a transaction
 * that is rolled back; the units whose rows fail are taken out of the batch and their attempts
 * fail instead (TASK_OUTPUT_WRITE_FAILED, retried like any failure), and the rest commits. A
 * batch whose output rows all pass alone was refused for another reason, which is rethrown.
 * This costs nothing until a batch fails.
 */
import type { FlowEvent } from "./events.js";
import type { SqlValue, StorePort } from "../store/index.js";
import type { TaskDescriptor } from "./types.js";

/** The statements and events of one settled success in the pending batch. */
export interface SettledUnit {
  key: string;
  desc: TaskDescriptor;
  attempt: number;
  tableKey: string;
  tableName: string;
  nodeId: string;
  iteration: number;
  /** Index of its output row's statement; its statements run to `opsEnd` (exclusive). */
  opsStart: number;
  opsEnd: number;
  eventsStart: number;
  eventsEnd: number;
}

/** A unit whose output row the store refused, and why. */
export interface RefusedUnit {
  unit: SettledUnit;
  cause: unknown;
}

const PROBE = Symbol("probe");

/** The settled successes of the batch not yet committed. */
export class SettledUnits {
  private units: SettledUnit[] = [];

  add(unit: SettledUnit): void {
    this.units.push(unit);
  }

  /** The batch committed: nothing is pending. */
  clear(): void {
    this.units = [];
  }

  /** Tries each pending unit's output row alone (rolled back) and returns those the store refuses. */
  async refused(store: StorePort, ops: ReadonlyArray<[string, SqlValue[]]>): Promise<RefusedUnit[]> {
    const out: RefusedUnit[] = [];
    for (const unit of this.units) {
      const [sql, params] = ops[unit.opsStart]!;
      try {
        await store.transaction(async (tx) => {
          await tx.execute(sql, params);
          throw PROBE;
        });
      } catch (cause) {
        if (cause !== PROBE) out.push({ unit, cause });
      }
    }
    return out;
  }

  /** Takes the refused units' statements and events out of the batch, and forgets them. */
  drop(ops: Array<[string, SqlValue[]]>, events: FlowEvent[], refused: readonly RefusedUnit[]): void {
    const dropOps = new Set<number>();
    const dropEvents = new Set<number>();
    for (const { unit } of refused) {
      for (let i = unit.opsStart; i < unit.opsEnd; i++) dropOps.add(i);
      for (let i = unit.eventsStart; i < unit.eventsEnd; i++) dropEvents.add(i);
    }
    const keptOps = ops.filter((_, i) => !dropOps.has(i));
    ops.splice(0, ops.length, ...keptOps);
    const keptEvents = events.filter((_, i) => !dropEvents.has(i));
    events.splice(0, events.length, ...keptEvents);
    this.units = [];
  }
}
