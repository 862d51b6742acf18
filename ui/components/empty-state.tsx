/**
 * @module ui/components/empty-state
 * What a view shows when it has nothing yet: a title, a line of help, an optional action.
 */
import type { JSX } from "solid-js";

/**
 * An empty state.
 * @example
 * <EmptyState title="No runs yet" hint="Launch a workflow to see it here." action={<A href="/launch">Launch</A>} />
 */
export function EmptyState(props: { title: string; hint?: string; action?: JSX.Element }) {
  return (
    <div class="empty-state">
      <h2>{props.title}</h2>
      {props.hint && <p>{props.hint}</p>}
      {props.action}
    </div>
  );
}
