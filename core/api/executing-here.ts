/**
 * @module core/api/executing-here
 * Whether a session of this host executes a run, for the calls that must not change a run under
 * its session (a rewind, a retry). A session that has written an ended status is only closing
 * (its last events published, its store released): the call waits for it instead of refusing,
 * so a rewind made the moment a run shows `finished` is not told the run is running.
 */
import type { RunStatus } from "../engine/index.js";
import type { ActiveRun, GatewayHost } from "./host.js";

/** Statuses a session writes as it ends: it closes right after, whatever its options. */
const CLOSING: ReadonlySet<RunStatus> = new Set(["finished", "failed", "cancelled", "continued", "paused"]);

/**
 * The run's session in this host while it executes the run; undefined when there is none, or
 * once the session that wrote the run's ended status has closed.
 * @example
 * if (await executingHere(host, runId)) throw new FlowError("INVALID_TRANSITION", "pause it first");
 */
export async function executingHere(host: GatewayHost, runId: string): Promise<ActiveRun | undefined> {
  const active = host.activeRun(runId);
  if (!active) return undefined;
  if (!CLOSING.has((await active.db.requireRun(runId)).status)) return active;
  await active.done;
  return host.activeRun(runId);
}
