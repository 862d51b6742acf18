/**
 * @module core/api/publish-written
 * Events a call wrote to a run that no session of this host executes (a rewind or retry that
 * does not resume it): published as a session's own are (`GatewayHost.publishRunEvent`), so that
 * its watchers and the change stream hear of it. Without it a browser's other tabs, and any
 * client of a host with no bridge from the store, kept the run as it was before the call.
 */
import type { FlowDb } from "../engine/index.js";
import type { GatewayHost } from "./host.js";

/**
 * The seq a run's log has reached, to publish what a call writes after it.
 * @example
 * const before = await seqOf(db, runId);
 * await timeTravel(db, opts);
 * await publishWritten(host, db, runId, before);
 */
export function seqOf(db: FlowDb, runId: string): Promise<number> {
  // seq runs from 1 without gaps: the count is the last one.
  return db.countEvents(runId);
}

/** Publishes the run's events after `afterSeq` to its subscribers and the change stream. */
export async function publishWritten(host: GatewayHost, db: FlowDb, runId: string, afterSeq: number): Promise<void> {
  for (const event of await db.listEvents(runId, { afterSeq, limit: 1000 })) host.publishRunEvent(event);
}
