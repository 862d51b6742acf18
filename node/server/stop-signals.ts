/**
 * @module node/server/stop-signals
 * Ctrl+C and SIGTERM for a process that hosts runs (`flow serve`, `npm start`): the first
 * signal starts `stop` (the Gateway pauses its runs as `shutdown`, see core/api/pick-up.ts),
 * and later signals are taken and ignored until it is done. A process started through a
 * wrapper gets the same signal more than once: the terminal sends it to the whole process
 * group and `npm`/`tsx` relay it again, and tsx's child exits at once on a signal nobody
 * listens for. With `process.once` the second copy killed the process before the pause was
 * written, about half the time (issue 23). See docs/app.md and docs/cli.md.
 */

/**
 * Runs `stop` at the first SIGINT or SIGTERM; resolves when it is done. Repeated signals
 * meanwhile are ignored (`onRepeat` is told).
 * @example
 * await untilStopSignal(() => gateway.close({ runs: "pause" }));
 * process.exit(0);
 */
export function untilStopSignal(stop: () => Promise<void>, onRepeat?: (signal: NodeJS.Signals) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return onRepeat?.(signal);
      stopping = true;
      stop().then(
        () => {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
          resolve();
        },
        (error: unknown) => {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
          reject(error);
        },
      );
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
