/**
 * @module ui/components/json-block
 * A JSON value, collapsible (`<details>`), pretty-printed, with a one-line preview in the
 * summary so a collapsed block still says what it holds.
 */
import "./json-block.css";

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
  return (
    <details class="json-block" open={props.open} data-testid={props.testId}>
      <summary>
        <span class="json-block-title">{props.title}</span>
        <code class="json-block-preview">{preview(props.value)}</code>
      </summary>
      <pre tabIndex={0}>{JSON.stringify(props.value, null, 2) ?? String(props.value)}</pre>
    </details>
  );
}
