/**
 * @module ui/components/action-button
 * A button for an action the current state may not allow: when `reason` is set it is off
 * (`aria-disabled`, still focusable) and says why — as a tooltip on hover and focus, and to
 * screen readers through `aria-describedby` — instead of silently greying out. The tooltip
 * opens under the button towards the page's middle: from its left edge, or from its right
 * edge where it would run past the window's (a button at the right of a panel).
 */
import { createSignal, createUniqueId, Show } from "solid-js";
import "./action-button.css";

/** An action button's props. */
export interface ActionButtonProps {
  label: string;
  /** Why the action is not available now (the button is off while set). */
  reason?: string | undefined;
  onClick(): void;
  tone?: "primary" | "danger";
  testId?: string;
}

/** The tip's max-width (action-button.css). */
const TIP_MAX_PX = 280;

/**
 * A button that explains why it is off.
 * @example
 * <ActionButton label="Pause" reason={run.status !== "running" ? `Only a running run can be paused (this one is ${run.status}).` : undefined} onClick={pause} />
 */
export function ActionButton(props: ActionButtonProps) {
  const id = createUniqueId();
  const [fromEnd, setFromEnd] = createSignal(false);
  // Measured when it is about to show: where the button is depends on the layout at that moment.
  // The tip is out of the layout until then, so its widest (TIP_MAX_PX) is what must fit.
  const place = (event: Event) => {
    const button = (event.currentTarget as HTMLElement).getBoundingClientRect();
    setFromEnd(button.left + TIP_MAX_PX > document.documentElement.clientWidth - 8);
  };
  return (
    <span class="action-button" classList={{ "tip-from-end": fromEnd() }} onPointerEnter={place} onFocusIn={place}>
      <button
        type="button"
        class={props.tone === "primary" ? "primary" : props.tone === "danger" ? "danger" : ""}
        aria-disabled={props.reason ? "true" : undefined}
        aria-describedby={props.reason ? id : undefined}
        data-testid={props.testId}
        onClick={() => !props.reason && props.onClick()}
      >
        {props.label}
      </button>
      <Show when={props.reason}>
        <span id={id} role="tooltip" class="action-button-reason">
          {props.reason}
        </span>
      </Show>
    </span>
  );
}
