/**
 * @module node/pid-alive
 * Whether a process of this machine is still running, for the lock and leftover files that
 * name their owner by pid.
 */

/**
 * True while process `pid` exists (one of another user counts: it exists, signalling it is
 * refused); false for a pid that is not a positive whole number.
 * @example
 * pidAlive(process.pid); // true
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
