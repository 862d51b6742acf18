/**
 * @module ui/views/run-detail/node-attempts
 * Every attempt of a node iteration (a long stretch that ended alike folded to its first, its
 * last and one row between: `foldAttempts`): state, start, duration, error, agent usage (so far,
 * from the run's events, while an attempt runs: the store has it once the attempt ends), the child
 * run it started (Subflow), what it changed in the workspace (diff, when it has snapshots: the
 * files, each opening to its unified diff),
 * and "Rewind here" — time travel to the attempt (`rewindRun`), behind a confirmation that
 * says what is kept: every earlier attempt and event stays as evidence.
 */
import { A } from "@solidjs/router";
import { createEffect, createMemo, createResource, createSignal, For, on, Show } from "solid-js";
import type { GatewayRunEventRow, GatewayRunNode } from "../../../core/data/index.js";
import { ActionButton } from "../../components/action-button.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { errorText } from "../../components/error-text.js";
import { formatCount, formatDuration, formatUsage, plural } from "../../components/format.js";
import { StatusBadge } from "../../components/status-badge.js";
import { useConnection } from "../../flow-context.js";
import { changeNote } from "../../../core/time-travel/index.js";
import { isFolded } from "../../../core/util/index.js";
import { foldAttempts, noAttemptsNote } from "./attempts-model.js";
import { attemptSpend } from "./live-usage.js";
import { FilePatch } from "./file-patch.js";
import { ResetDecisions } from "./reset-decisions.js";
import { whyNotRewind } from "./run-status-rules.js";

type Attempt = GatewayRunNode["attempts"][number];

/** Tokens and cost of an agent attempt (`meta.usage`, `meta.costUsd`), in words. */
function usageText(meta: Attempt["meta"]): string | undefined {
  const m = meta as { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number }; costUsd?: number } | null;
  if (!m?.usage && m?.costUsd === undefined) return undefined;
  const inOut = m.usage?.inputTokens !== undefined ? ` (${formatCount(m.usage.inputTokens)} in, ${formatCount(m.usage.outputTokens ?? 0)} out)` : "";
  return `${formatUsage({ ...m.usage, ...(m.costUsd !== undefined ? { costUsd: m.costUsd } : {}) })}${inOut}`;
}

/**
 * The attempts table of a node iteration.
 * @example
 * <NodeAttempts runId={runId} runStatus={run.status} runStartMs={run.createdAtMs} node={node} events={data.events()} />
 */
export function NodeAttempts(props: { runId: string; runStatus: string; runStartMs: number; node: GatewayRunNode; events: readonly GatewayRunEventRow[] }) {
  const { cols } = useConnection();
  const [rewinding, setRewinding] = createSignal<Attempt>();
  const [diffOf, setDiffOf] = createSignal<number>();
  /** Folded stretches the user opened, by their first attempt. */
  const [unfolded, setUnfolded] = createSignal<ReadonlySet<number>>(new Set());
  const rows = createMemo(() => foldAttempts(props.node.attempts, unfolded()));
  /** The files of the open diff whose patch is shown. */
  const [shown, setShown] = createSignal<ReadonlySet<string>>(new Set());
  const toggleFile = (path: string) => setShown((s) => (s.has(path) ? new Set([...s].filter((p) => p !== path)) : new Set([...s, path])));
  // Another node selected: its attempts have other numbers, so no diff stays open.
  createEffect(on(() => `${props.runId}/${props.node.nodeId}#${props.node.iteration}`, () => (setDiffOf(undefined), setUnfolded(new Set<number>())), { defer: true }));
  // Another attempt's diff: its files start closed.
  createEffect(on(diffOf, () => setShown(new Set<string>()), { defer: true }));
  const [diff] = createResource(
    () => diffOf(),
    (attempt) => cols.data.api.getNodeDiff(props.runId, props.node.nodeId, { iteration: props.node.iteration, attempt }),
  );
  const [keep, setKeep] = createSignal(false);
  const [preview] = createResource(
    () => rewinding(),
    (a) => cols.data.api.rewindRun({ runId: props.runId, nodeId: a.nodeId, iteration: a.iteration, attempt: a.attempt, preview: true }),
  );
  /** Repositories of their own inside the workspace the restore leaves as they are (known once the preview answered). */
  const kept = () => (preview.loading ? [] : (preview()?.keptRepositories ?? []));
  const one = () => kept().length === 1;
  const rewind = async (a: Attempt) => {
    const result = await cols.data.api.rewindRun({ runId: props.runId, nodeId: a.nodeId, iteration: a.iteration, attempt: a.attempt, restoreVcs: a.vcsPointer !== null, ...(keep() ? { keepDecisions: true } : {}) });
    if (!result.success) throw new Error(result.error ?? `Run ${props.runId} could not be rewound to ${a.nodeId} attempt ${a.attempt}.`);
    void cols.invalidate({ runId: props.runId });
  };
  return (
    <Show when={props.node.attempts.length > 0} fallback={<p class="muted">{noAttemptsNote(props.node.state)}</p>}>
      <table class="node-attempts">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">State</th>
            <th scope="col">Started</th>
            <th scope="col">Took</th>
            <th scope="col">Details</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          <For each={rows()}>
            {(row) => {
              if (isFolded(row)) {
                const [first, last] = [row.items[0]!, row.items.at(-1)!];
                return (
                  <tr data-testid="attempts-folded" data-first={first.attempt} data-last={last.attempt}>
                    <td colSpan={6} class="node-attempts-folded">
                      <StatusBadge status={first.state} />{" "}
                      <span>
                        Attempts {first.attempt}–{last.attempt} ({formatCount(row.items.length)}) ended as attempt {first.attempt - 1} did{first.error ? ", with the same error" : ""}.
                      </span>{" "}
                      <button type="button" class="ghost" onClick={() => setUnfolded((s) => new Set([...s, first.attempt]))}>
                        Show them
                      </button>
                    </td>
                  </tr>
                );
              }
              const a = row;
              const child = () => (a.meta as { childRunId?: unknown } | null)?.childRunId;
              const spentSoFar = createMemo(() => (a.state === "in-progress" && !usageText(a.meta) ? formatUsage(attemptSpend(props.events, a)) : undefined));
              return (
                <tr data-testid="attempt" data-attempt={a.attempt} data-state={a.state}>
                  <td>{a.attempt}</td>
                  <td>
                    <StatusBadge status={a.state} />
                  </td>
                  <td class="mono" title={new Date(a.startedAtMs).toLocaleString()}>
                    +{formatDuration(a.startedAtMs - props.runStartMs)}
                  </td>
                  <td>{a.finishedAtMs !== null ? formatDuration(a.finishedAtMs - a.startedAtMs) : a.state === "in-progress" ? "running" : "—"}</td>
                  <td>
                    <div class="node-attempt-details">
                      <Show when={a.error}>{(e) => <span class="node-attempt-error">{`${e().code}: ${e().message}`}</span>}</Show>
                      <Show when={usageText(a.meta)}>{(u) => <span class="muted" data-testid="attempt-cost">{u()}</span>}</Show>
                      <Show when={spentSoFar()}>
                        {(u) => (
                          <span class="muted" data-testid="attempt-cost-live" title="What the attempt's model calls have spent so far; the store counts it when the attempt ends">
                            {u()} so far
                          </span>
                        )}
                      </Show>
                      <Show when={typeof child() === "string"}>
                        <A href={`/runs/${encodeURIComponent(child() as string)}`}>child run {String(child()).slice(0, 12)}</A>
                      </Show>
                    </div>
                  </td>
                  <td class="node-attempt-actions">
                    <Show when={a.vcsPointer}>
                      <button type="button" class="ghost" aria-expanded={diffOf() === a.attempt} onClick={() => setDiffOf(diffOf() === a.attempt ? undefined : a.attempt)}>
                        Diff
                      </button>
                    </Show>
                    <ActionButton label="Rewind here" testId="rewind" reason={whyNotRewind(props.runStatus)} onClick={() => setRewinding(a)} />
                  </td>
                </tr>
              );
            }}
          </For>
        </tbody>
      </table>
      <Show when={diffOf() !== undefined}>
        <div class="node-diff" aria-live="polite">
          <Show when={!diff.loading} fallback={<p class="muted">Loading the diff…</p>}>
            <Show when={!diff.error} fallback={<p class="error-banner">{errorText(diff.error)}</p>}>
              <Show when={(diff()?.files.length ?? 0) > 0} fallback={<p class="muted">Attempt {diffOf()} changed no file.</p>}>
                <p class="muted">
                  Attempt {diffOf()} changed {plural(diff()?.files.length ?? 0, "file")}:
                </p>
                <ul>
                  <For each={diff()?.files}>
                    {(f) => (
                      <li data-testid="diff-file" data-path={f.path}>
                        <button type="button" class="ghost diff-file" aria-expanded={shown().has(f.path)} onClick={() => toggleFile(f.path)} title={shown().has(f.path) ? "Hide how it changed" : "Show how it changed"}>
                          <span aria-hidden="true">{shown().has(f.path) ? "▾" : "▸"}</span>{" "}
                          <span class={`badge ${f.status === "deleted" ? "tone-bad" : f.status === "added" ? "tone-ok" : "tone-info"}`}>{f.status}</span> <code>{f.path}</code>
                        </button>
                        <Show when={changeNote(f)}>{(note) => <span class="muted"> ({note()})</span>}</Show>
                        <Show when={shown().has(f.path)}>
                          <FilePatch runId={props.runId} nodeId={props.node.nodeId} iteration={props.node.iteration} attempt={diffOf()!} path={f.path} />
                        </Show>
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
            </Show>
          </Show>
        </div>
      </Show>
      <ConfirmDialog
        open={rewinding() !== undefined}
        title={`Rewind to ${props.node.nodeId}, attempt ${rewinding()?.attempt ?? ""}?`}
        confirmLabel="Rewind and resume"
        tone="danger"
        onConfirm={() => rewind(rewinding()!)}
        onClose={() => (setRewinding(undefined), setKeep(false))}
        testId="rewind-dialog"
      >
        <p>
          The run goes back to the moment attempt {rewinding()?.attempt} of <code>{props.node.nodeId}</code> started, then resumes: this task and everything that ran after it
          run again. Their current output rows are cleared and written anew.
        </p>
        <ResetDecisions preview={preview} keep={keep()} onKeep={setKeep} />
        <p>
          <strong>Nothing is erased from the record.</strong> Every attempt so far stays listed as evidence (later ones are marked cancelled) and the event log keeps every
          event.{" "}
          {rewinding()?.vcsPointer ? "The workspace files go back to the snapshot taken when the attempt started." : "This attempt has no workspace snapshot, so files are left as they are; only the run's rows go back."}
        </p>
        <Show when={kept().length > 0}>
          <p data-testid="rewind-kept">
            <strong>Left as {one() ? "it is" : "they are"}:</strong> <For each={kept()}>{(path, i) => <>{i() > 0 ? ", " : ""}<code>{path}</code></>}</For>{" "}
            <span class="muted">
              {one()
                ? "(a git repository of its own inside the workspace: the snapshot holds only the commit it was at, so its files stay as they are now)."
                : "(git repositories of their own inside the workspace: the snapshot holds only the commit each was at, so their files stay as they are now)."}
            </span>
          </p>
        </Show>
        <p>Tool calls with side effects since then (an email sent...) cannot be undone; the rewind stops and says so when it would cross one.</p>
      </ConfirmDialog>
    </Show>
  );
}
