/**
 * @module ui/components/middle-ellipsis
 * Text that, when its cell is too narrow, gives up its middle rather than its end: a run id
 * whose runs differ at the end (a cron's `cron-<cron id>-<minute>`, a child run's
 * `<parent>/<node>@<n>`) stays told apart. Its whole text is still its text content (and
 * what a copy takes); only the start is cut, with an ellipsis, by CSS.
 */
import "./middle-ellipsis.css";

/**
 * `text`, its last `keep` characters always shown (default 12).
 * @example
 * <a class="run-id mono" href={href}><MiddleEllipsis text={run.runId} /></a>
 */
export function MiddleEllipsis(props: { text: string; keep?: number }) {
  const cut = () => Math.max(0, props.text.length - (props.keep ?? 12));
  return (
    <span class="middle-ellipsis">
      <span class="middle-ellipsis-start">{props.text.slice(0, cut())}</span>
      <span class="middle-ellipsis-end">{props.text.slice(cut())}</span>
    </span>
  );
}
