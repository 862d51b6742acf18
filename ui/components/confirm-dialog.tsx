/**
 * @module ui/components/confirm-dialog
 * A modal confirmation (native `<dialog>`: focus moves into it, Escape closes it, focus goes
 * back to the button that opened it). The action runs inside it: the confirm button shows
 * progress, and a refused action's error stays in the dialog so the person can read it.
 */
import { createEffect, createSignal, type JSX, Show } from "solid-js";
import { errorText } from "./error-text.js";
import "./confirm-dialog.css";

/** What a confirmation says and does. */
export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: JSX.Element;
  confirmLabel: string;
  /** `danger` paints the confirm button red (cancel, rewind). */
  tone?: "primary" | "danger";
  /** Runs the action; the dialog closes when it resolves and shows the error when it throws. */
  onConfirm(): Promise<unknown>;
  onClose(): void;
  testId?: string;
}

/**
 * A confirmation dialog.
 * @example
 * <ConfirmDialog open={asking()} title="Cancel run r1?" confirmLabel="Cancel run" tone="danger"
 *   onConfirm={() => cols.cancel("r1")} onClose={() => setAsking(false)}>Running tasks stop.</ConfirmDialog>
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  let dialog!: HTMLDialogElement;
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  createEffect(() => {
    if (props.open && !dialog.open) {
      setError(undefined);
      dialog.showModal();
    } else if (!props.open && dialog.open) dialog.close();
  });
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} class="confirm-dialog card" aria-labelledby="confirm-dialog-title" data-testid={props.testId} onClose={() => props.open && props.onClose()}>
      <h2 id="confirm-dialog-title">{props.title}</h2>
      <div class="confirm-dialog-body">{props.children}</div>
      <Show when={error()}>
        <p class="error-banner" role="alert">
          {error()}
        </p>
      </Show>
      <div class="confirm-dialog-buttons">
        <button type="button" onClick={() => props.onClose()} disabled={busy()}>
          Keep as is
        </button>
        <button type="button" class={props.tone === "danger" ? "danger-solid" : "primary"} onClick={() => void confirm()} disabled={busy()} data-testid="confirm">
          {busy() ? "Working…" : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
