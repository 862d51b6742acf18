/**
 * @module ui/components/now
 * A clock signal for live durations ("running for 12 s"): ticks while `live()` is true and
 * stops (one last tick) when it turns false, so ended runs cost no timers.
 */
import { type Accessor, createEffect, createSignal, onCleanup } from "solid-js";

/**
 * The current time in ms, updated every `everyMs` while `live()` is true.
 * @example
 * const now = createNow(() => run()?.finishedAtMs === null);
 * <span>{formatDuration(now() - run().createdAtMs)}</span>
 */
export function createNow(live: Accessor<boolean>, everyMs = 1000): Accessor<number> {
  const [now, setNow] = createSignal(Date.now());
  createEffect(() => {
    setNow(Date.now());
    if (!live()) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    onCleanup(() => clearInterval(timer));
  });
  return now;
}
