/**
 * @module core/data/last-seen
 * The rows a workspace's collections loaded last, kept by the caller (the app keeps them in
 * IndexedDB, ui/workspace/last-seen.ts) so a workspace that cannot be reached still shows what
 * was seen, and when, instead of nothing. A load that succeeds is saved; a load that finds no
 * gateway (GATEWAY_UNAVAILABLE) answers the saved value instead, and the collection reads as
 * loaded; the change stream refetches everything once the gateway answers again. While the
 * source is still starting (`warming`: this browser's engine opening its database), a load
 * answers the saved value at once instead of waiting, so a view shows the last-known rows
 * while the source starts; the caller refetches once it has (ui/workspace/connect.ts).
 */

/**
 * Where the last loads are kept (by collection id), and what tells the caller it was used.
 * @example
 * const kept = new Map<string, unknown>();
 * createCollections(mode, queryClient, { lastSeen: { save: (id, v) => void kept.set(id, v), load: async (id) => kept.get(id) } });
 */
export interface LastSeenStore {
  save(id: string, value: unknown): void | Promise<void>;
  /** The saved value, or undefined; a store that served one can record that it did (to say "as of when"). */
  load(id: string): Promise<unknown>;
  /** True while the source is still starting: loads then answer a saved value, when there is one, without waiting for it. */
  warming?(): boolean;
  /** Told when a load found no gateway and nothing saved, and answered its `unseen` value instead (the view says it has not seen it). */
  unseen?(id: string): void;
}

/**
 * Wraps a collection's fetch: saved on success, served from the store when no gateway answers
 * or while the source is warming. With `unseen`, a load that finds no gateway and nothing
 * saved answers `unseen()` (and tells the store) instead of failing: the collection reads as
 * loaded and empty, no failed query on the console, and the change stream refetches it once
 * the gateway answers (a run's page opened offline, core/data/source.ts).
 * @example
 * const fetchRuns = rememberLast(store, "flow:http://127.0.0.1:7331:runs", () => api.listRuns());
 * const fetchEvents = rememberLast(store, "flow:http://127.0.0.1:7331:runEvents:r1", () => api.listRunEvents("r1"), () => []);
 */
export function rememberLast<D>(store: LastSeenStore | undefined, id: string, fetch: () => Promise<D>, unseen?: () => D): () => Promise<D> {
  if (!store) return fetch;
  return async () => {
    if (store.warming?.()) {
      const saved = await store.load(id).catch(() => undefined);
      if (saved !== undefined) return saved as D;
    }
    try {
      const value = await fetch();
      void Promise.resolve()
        .then(() => store.save(id, value))
        .catch(() => undefined);
      return value;
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== "GATEWAY_UNAVAILABLE") throw error;
      const last = await store.load(id).catch(() => undefined);
      if (last !== undefined) return last as D;
      if (!unseen) throw error;
      store.unseen?.(id);
      return unseen();
    }
  };
}
