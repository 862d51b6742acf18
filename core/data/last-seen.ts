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
}

/**
 * Wraps a collection's fetch: saved on success, served from the store when no gateway answers
 * or while the source is warming.
 * @example
 * const fetchRuns = rememberLast(store, "flow:http://127.0.0.1:7331:runs", () => api.listRuns());
 */
export function rememberLast<D>(store: LastSeenStore | undefined, id: string, fetch: () => Promise<D>): () => Promise<D> {
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
      if (last === undefined) throw error;
      return last as D;
    }
  };
}
