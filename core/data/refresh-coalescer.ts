/**
 * @module core/data/refresh-coalescer
 * How the change stream's refetches of one thing (a run, a collection) are coalesced
 * (core/data/live-sync.ts): at most two in flight and one queued behind them, started at least
 * REFRESH_SPACING_MS apart.
 */

/**
 * The least time between the starts of two fetches of one key. A live run changes at every
 * task: a run page in the browser, whose engine answers its fetches in the same worker that runs
 * the tasks, fetched again as fast as it applied the answers, and a 100-task run of instant
 * tasks took a quarter longer while watched (docs/performance.md "A live run's timeline"). At
 * this spacing a page still shows a live run 25 times a second; a change after a quiet moment
 * is fetched at once.
 */
export const REFRESH_SPACING_MS = 40;

/**
 * Runs `work` for a key with at most two runs in flight and one queued behind them: a change
 * that arrives while a fetch is under way starts its own fetch (the running one may have read
 * the state before the change), and bursts of changes (a run's events come in batches) cost at
 * most three fetches. A start waits until `spacingMs` after the key's last start. `work` gets a
 * generation number; callers apply only results newer than the last applied (`isLatest`).
 * @example
 * const coalescer = new Coalescer();
 * await coalescer.run(`run:${runId}`, async (generation) => {
 *   const row = await api.getRun(runId);
 *   if (coalescer.isLatest(`run:${runId}`, generation)) apply(row);
 * });
 */
export class Coalescer {
  private readonly inFlight = new Map<string, number>();
  private readonly queued = new Map<string, Promise<void>>();
  private readonly started = new Map<string, number>();
  private readonly applied = new Map<string, number>();
  private readonly waiting = new Map<string, () => void>();
  /** When each key's last fetch started (ms), kept while a next one must wait for it. */
  private readonly startedAt = new Map<string, number>();

  constructor(private readonly spacingMs = REFRESH_SPACING_MS) {}

  run(key: string, work: (generation: number) => Promise<void>): Promise<void> {
    if ((this.inFlight.get(key) ?? 0) < 2) return this.start(key, work);
    const queued = this.queued.get(key);
    if (queued) return queued;
    // Starts when one of the two in flight finishes.
    const next = new Promise<void>((resolve) => this.waiting.set(key, resolve)).then(() => {
      this.queued.delete(key);
      return this.start(key, work);
    });
    this.queued.set(key, next);
    return next;
  }

  /** True when `generation` is newer than every result applied for `key` (and marks it applied). */
  isLatest(key: string, generation: number): boolean {
    if (generation <= (this.applied.get(key) ?? 0)) return false;
    this.applied.set(key, generation);
    return true;
  }

  private async start(key: string, work: (generation: number) => Promise<void>): Promise<void> {
    const generation = (this.started.get(key) ?? 0) + 1;
    this.started.set(key, generation);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    try {
      const due = (this.startedAt.get(key) ?? Number.NEGATIVE_INFINITY) + this.spacingMs;
      // A timer may fire a millisecond early by the wall clock (libuv's loop time is cached and
      // truncated): wait again until the spacing has passed by it (a gap of 38 ms was seen).
      for (let wait = due - Date.now(); wait > 0; wait = due - Date.now()) await new Promise((resolve) => setTimeout(resolve, wait));
      this.startedAt.set(key, Date.now());
      await work(generation);
    } catch {
      // a failed refresh keeps the rows; the next change or reset refreshes again
    } finally {
      const left = (this.inFlight.get(key) ?? 1) - 1;
      const wake = this.waiting.get(key);
      this.waiting.delete(key);
      if (left > 0 || wake) this.inFlight.set(key, left);
      else {
        // Idle: forget the key, but when it last started while a next start would still wait.
        for (const m of [this.inFlight, this.started, this.applied]) m.delete(key);
        if (Date.now() - (this.startedAt.get(key) ?? 0) >= this.spacingMs) this.startedAt.delete(key);
      }
      wake?.();
    }
  }
}
