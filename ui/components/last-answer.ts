/**
 * @module ui/components/last-answer
 * A resource's last answer, read without suspending the view. Reading a resource (or its
 * `latest` before its first answer) while it loads hands the nearest Suspense, the shell's around
 * each view, the whole view: "Loading…" in its place until the answer comes, and the view drawn
 * again. Views that show their own "loading" read answers this way.
 */
import type { Resource } from "solid-js";

/**
 * The resource's last answer while it has one (ready, or refreshing after one); undefined
 * before it, and after an error (`resource.error` says which).
 * @example
 * const [usage] = createResource(key, fetchUsage);
 * <Show when={lastAnswer(usage)} fallback="Loading…">{(u) => formatUsage(u())}</Show>
 */
export function lastAnswer<T>(resource: Resource<T>): T | undefined {
  return resource.state === "ready" || resource.state === "refreshing" ? resource.latest : undefined;
}
