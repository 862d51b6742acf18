/**
 * @module core/api/executing-here
 * Whether a session of this host executes a run, for the calls that must not act on a run
 * under its session (resume, pause, cancel, rewind, retry). A session that has published the
 * run's end is only closing (its store work, log and services): the call waits for it instead
 * of answering for it, so a Resume clicked the moment a run shows `paused` resumes it and a
 * rewind the moment it shows `finished` is not told the run is running. A session that is still
 * opening (a resume that has not claimed the run yet) executes the run: it is not waited for.
 */
import type { FlowEvent } from "../engine/index.js";
import { type ActiveRun, type GatewayHost, TERMINAL_EVENT_TYPES } from "./host.js";

/** Events after which a session ends, whatever its options: the terminal ones and a pause. */
export const ENDING_EVENT_TYPES: ReadonlySet<FlowEvent["type"]> = new Set([...TERMINAL_EVENT_TYPES, "RunPaused"]);

/**
 * The run's session in this host while it executes the run; undefined when there is none, or
 * once a session that published the run's end (`ActiveRun.closing`) has closed.
 * @example
 * if (await executingHere(host, runId)) throw new FlowError("INVALID_TRANSITION", "pause it first");
 */
export async function executingHere(host: GatewayHost, runId: string): Promise<ActiveRun | undefined> {
  const active = host.activeRun(runId);
  if (!active?.closing) return active;
  await active.done;
  return host.activeRun(runId);
}
