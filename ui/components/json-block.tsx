/**
 * @module ui/components/json-block
 * A JSON value, collapsible (`<details>`), pretty-printed, with a one-line preview in the
 * summary so a collapsed block still says what it holds. A long value opens at a readable
 * height and "Show all N lines" lets it grow to its full length (and back).
 */
import { createSignal, Show } from "solid-js";
import { formatCount } from "./format.js";
import "./json-block.css";

/** Lines shown before "Show all" (about the block's 320 px). */
const FOLDED_LINES = 16;

/** The value as one short line (for summaries). */
function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * A collapsible JSON block.
 * @example
 * <JsonBlock title="Input" value={run.input} open />
 */
export function JsonBlock(props: { title: string; value: unknown; open?: boolean; testId?: string }) {
  const [full, setFull] = createSignal(false);
  const text = () => JSON.stringify(props.value, null, 2) ?? String(props.value);
  const lines = () => text().split("\n").length;
  return (
    <details class="json-block" open={props.open} data-testid={props.testId}>
      <summary>
        <span class="json-block-title">{props.title}</span>
        <code class="json-block-preview">{preview(props.value)}</code>
      </summary>
      <pre tabIndex={0} classList={{ "json-block-full": full() }}>{text()}</pre>
      <Show when={lines() > FOLDED_LINES || text().length > 2000}>
        <button type="button" class="ghost json-block-more" aria-expanded={full()} onClick={() => setFull(!full())} data-testid="json-show-all">
          {full() ? "Show less" : `Show all ${formatCount(lines())} lines`}
        </button>
      </Show>
    </details>
  );
}
