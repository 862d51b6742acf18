/**
 * @module ui/components/copy-button
 * A button that copies a text (a run id, a command) and says so for a moment. Falls back to
 * selecting a hidden textarea where the Clipboard API is missing (plain-http pages).
 */
import { createSignal } from "solid-js";
import "./copy-button.css";

/**
 * Copies `text` to the clipboard.
 * @example
 * <CopyButton text={run.runId} label="Copy run id" />
 */
export function CopyButton(props: { text: string; label: string }) {
  const [copied, setCopied] = createSignal<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      if (navigator.clipboard?.writeText) await navigator.clipboard.writeText(props.text);
      else copyBySelection(props.text);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied("idle"), 1500);
  };
  return (
    <button type="button" class="copy-button ghost" onClick={() => void copy()} aria-label={props.label} title={props.label}>
      {copied() === "copied" ? "Copied" : copied() === "failed" ? "Copy failed" : "Copy"}
      <span class="sr-only" role="status" aria-live="polite">
        {copied() === "copied" ? `${props.label}: done` : ""}
      </span>
    </button>
  );
}

function copyBySelection(text: string): void {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}
