/**
 * @module core/time-travel/internal
 * core/time-travel's second door (core/seams.test.ts): names Flow's other areas take that are
 * not published. `forkRootDir`: where the `forkRun` RPC's new run works; `keptByRewind`: what a
 * rewind's preview names as left as it is.
 */
export { forkRootDir } from "./fork.js";
export { keptByRewind } from "./time-travel.js";
