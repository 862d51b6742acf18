/**
 * @module ui/components/connection-status
 * The connection status pill, always in the header: `online` (changes arrive live),
 * `offline` (the last loaded data is shown, retrying), `reconnecting` (the live connection
 * dropped after working), `connecting` (opening the workspace). A workspace in this browser
 * needs no network: it reads `starting` while its engine opens its database (not
 * `connecting`: nothing is reached over a network), `local` once the engine answers, and says
 * when the network is gone (runs go on regardless). A team workspace adds how many changes made offline wait to
 * be sent ("offline · 2 changes waiting"). Hover or focus shows what it means; the status is announced
 * politely to screen readers.
 */
import { type Accessor, createMemo, createSignal, createUniqueId, onCleanup } from "solid-js";
import type { ConnectionStatus as StreamStatus } from "../../core/data/index.js";
import "./connection-status.css";

/** What the pill shows. */
export type ConnectionLabel = "online" | "offline" | "reconnecting" | "connecting" | "starting" | "closed" | "local" | "no access";

const MEANING: Record<ConnectionLabel, string> = {
  online: "Live: changes appear here as they happen, with no reload.",
  offline: "Offline: the workspace does not answer. You see the data last loaded; Flow keeps retrying and catches up when it is back.",
  reconnecting: "Reconnecting: the live connection dropped. Flow is retrying; what you see may be a few seconds old.",
  connecting: "Connecting to the workspace…",
  starting: "Starting: this tab's engine opens its database in this browser (the first time it creates it, which takes a few seconds). What you launch now starts as soon as it is ready.",
  closed: "Closed: this workspace's connection was shut (another workspace is open).",
  "no access": "No access: the workspace answers, but not to this sign-in. Sign in with a token it accepts (below), or ask one of its admins to add you.",
  local: "This browser: runs execute here and changes appear live. It needs no network: with the network off, runs go on and everything is kept in this browser.",
};

/**
 * The label of a stream status, given whether it was ever online (a stream that reconnects
 * says `connecting` again; people read that as "reconnecting").
 * @example
 * connectionLabel("connecting", true); // "reconnecting"
 */
export function connectionLabel(status: StreamStatus, wasOnline: boolean): ConnectionLabel {
  return status === "connecting" && wasOnline ? "reconnecting" : status;
}

/**
 * The pill.
 * @example
 * <ConnectionStatus status={flow.status} />
 */
export function ConnectionStatus(props: { status: Accessor<StreamStatus | "denied">; local?: boolean; /** Writes made offline, waiting to be sent (team workspaces). */ waiting?: number }) {
  const id = createUniqueId();
  const [wasOnline, setWasOnline] = createSignal(false);
  const [network, setNetwork] = createSignal(navigator.onLine);
  const onNetwork = () => setNetwork(navigator.onLine);
  addEventListener("online", onNetwork);
  addEventListener("offline", onNetwork);
  onCleanup(() => {
    removeEventListener("online", onNetwork);
    removeEventListener("offline", onNetwork);
  });
  const label = createMemo((): ConnectionLabel => {
    const s = props.status();
    if (s === "online") queueMicrotask(() => setWasOnline(true));
    if (s === "denied") return "no access";
    if (props.local && s === "online") return "local";
    if (props.local && s === "connecting" && !wasOnline()) return "starting";
    return connectionLabel(s, wasOnline());
  });
  return (
    <span class="conn" tabIndex={0} aria-describedby={id}>
      <span class={`status-pill status-${label().replace(" ", "-")}`} role="status" aria-live="polite" data-testid="connection-status" data-status={label()}>
        <span class="conn-dot" aria-hidden="true" />
        {label() === "local" ? (network() ? "this browser" : "this browser · no network") : label()}
        {props.waiting ? <span data-testid="changes-waiting"> · {props.waiting === 1 ? "1 change waiting" : `${props.waiting} changes waiting`}</span> : null}
      </span>
      <span id={id} role="tooltip" class="conn-tip">
        {MEANING[label()]}
        {props.waiting ? ` ${props.waiting === 1 ? "One change you made waits" : `${props.waiting} changes you made wait`} in this browser and will be sent in order once the workspace answers.` : ""}
      </span>
    </span>
  );
}
