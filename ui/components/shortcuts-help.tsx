/**
 * @module ui/components/shortcuts-help
 * The keyboard shortcuts, listed in a dialog that `?` opens from anywhere (but a text field)
 * and the header's "Shortcuts" button; Escape closes it and focus returns where it was.
 */
import { For, onCleanup } from "solid-js";
import "./shortcuts-help.css";

/** The shortcuts the app offers (views add theirs here so one list stays true). */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; what: string; where: string }> = [
  { keys: ["?"], what: "Show this list", where: "Anywhere" },
  { keys: ["/"], what: "Search runs", where: "Runs" },
  { keys: ["j", "↓"], what: "Next run", where: "Runs" },
  { keys: ["k", "↑"], what: "Previous run", where: "Runs" },
  { keys: ["Enter"], what: "Open the run", where: "Runs" },
  { keys: ["x"], what: "Select the run (shift+x: a range)", where: "Runs" },
  { keys: ["Shift", "click"], what: "Select a range of runs", where: "Runs" },
  { keys: ["Esc"], what: "Leave a field or close a dialog", where: "Anywhere" },
];

/**
 * The shortcuts dialog and its `?` key; `ref` gives a function that opens it.
 * @example
 * let openHelp!: () => void;
 * <ShortcutsHelp ref={(open) => (openHelp = open)} />
 */
export function ShortcutsHelp(props: { ref?: (open: () => void) => void }) {
  let dialog!: HTMLDialogElement;
  const open = () => !dialog.open && dialog.showModal();
  props.ref?.(open);
  const onKey = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement | null;
    if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    e.preventDefault();
    open();
  };
  document.addEventListener("keydown", onKey);
  onCleanup(() => document.removeEventListener("keydown", onKey));
  return (
    <dialog ref={dialog} class="shortcuts card" aria-labelledby="shortcuts-title" data-testid="shortcuts-help">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          <For each={SHORTCUTS}>
            {(s) => (
              <tr>
                <td class="shortcuts-keys">
                  <For each={s.keys}>{(k) => <kbd>{k}</kbd>}</For>
                </td>
                <td>{s.what}</td>
                <td class="muted">{s.where}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <form method="dialog" class="shortcuts-close">
        <button class="primary" autofocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
