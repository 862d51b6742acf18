/**
 * @module ui/views/run-detail/node-transcript
 * The selected task's agent transcript (docs/agents.md, "Transcripts"), per attempt: each
 * generation with its model, provider, tokens and cost, the text it streamed and every tool
 * call with its arguments and result (or refusal code). Built with `buildTranscripts` from the
 * run's events collection the page already holds, so it grows live as `Agent*` events arrive
 * (no polling) and a reload shows the transcript so far. The latest SHOWN_TRANSCRIPTS attempts
 * show at first, the earlier ones on request.
 */
import { createEffect, createMemo, createSignal, For, on, Show } from "solid-js";
import { buildTranscripts, type TranscriptAttempt, type TranscriptGeneration, type TranscriptToolCall } from "../../../core/agents/index.js";
import type { GatewayRunEventRow } from "../../../core/data/index.js";
import { formatDuration, formatUsage, plural } from "../../components/format.js";
import { JsonBlock } from "../../components/json-block.js";
import { StatusBadge } from "../../components/status-badge.js";

/** Attempts whose transcripts show at first: the latest (a task retried for days has thousands). */
const SHOWN_TRANSCRIPTS = 20;

/**
 * The attempts of one node iteration that ran an agent (the events of other tasks and
 * iterations are skipped); nothing when no agent ran.
 * @example
 * <NodeTranscript events={data.events()} nodeId="fix" iteration={0} />
 */
export function NodeTranscript(props: { events: readonly GatewayRunEventRow[]; nodeId: string; iteration: number; /** The node's attempts: a failed or cancelled one is marked so in its summary. */ attempts: readonly { attempt: number; state: string }[] }) {
  const attempts = createMemo(() => buildTranscripts(props.events, props.nodeId).filter((a) => a.iteration === props.iteration && a.generations.length > 0));
  const [all, setAll] = createSignal(false);
  createEffect(on(() => `${props.nodeId}#${props.iteration}`, () => setAll(false), { defer: true }));
  const hidden = () => (all() ? 0 : Math.max(0, attempts().length - SHOWN_TRANSCRIPTS));
  const shown = createMemo(() => attempts().slice(hidden()));
  const stateOf = createMemo(() => new Map(props.attempts.map((a) => [a.attempt, a.state])));
  return (
    <Show when={attempts().length > 0}>
      <h3>Transcript</h3>
      <div class="node-transcript" data-testid="transcript" aria-live="polite">
        <Show when={hidden() > 0}>
          <p class="muted" data-testid="transcripts-hidden">
            The transcripts of {plural(hidden(), "earlier attempt")} are not shown.{" "}
            <button type="button" class="ghost" onClick={() => setAll(true)}>Show them</button>
          </p>
        </Show>
        <For each={shown()}>{(a) => <AttemptTranscript attempt={a} state={stateOf().get(a.attempt)} open={a === attempts()[attempts().length - 1]} />}</For>
      </div>
    </Show>
  );
}

function AttemptTranscript(props: { attempt: TranscriptAttempt; state: string | undefined; open: boolean }) {
  const usage = () => formatUsage(props.attempt.costUsd !== undefined ? { ...props.attempt.usage, costUsd: props.attempt.costUsd } : props.attempt.usage);
  return (
    <details class="transcript-attempt" open={props.open} data-testid="transcript-attempt" data-attempt={props.attempt.attempt}>
      <summary>
        <strong>Attempt {props.attempt.attempt}</strong>
        <span class="muted"> · {props.attempt.generations.length === 1 ? "1 generation" : `${props.attempt.generations.length} generations`}</span>
        <Show when={usage()}>{(u) => <span class="mono" data-testid="attempt-usage"> · {u()}</span>}</Show>
        <Show when={props.attempt.interrupted}>
          <span class="badge tone-warn"> interrupted</span>
        </Show>
        <Show when={!props.attempt.interrupted && (props.state === "failed" || props.state === "cancelled" || props.attempt.generations.at(-1)?.status === "failed")}>
          {" "}
          <StatusBadge status={props.state === "cancelled" ? "cancelled" : "failed"} />
        </Show>
      </summary>
      <For each={props.attempt.generations}>{(g) => <Generation gen={g} />}</For>
    </details>
  );
}

function Generation(props: { gen: TranscriptGeneration }) {
  const g = () => props.gen;
  const usage = () => formatUsage(g().costUsd !== undefined ? { ...g().usage, costUsd: g().costUsd } : g().usage);
  return (
    <section class="transcript-generation" data-testid="generation" data-status={g().status} aria-label={`Generation ${g().generation}`}>
      <header class="transcript-generation-head">
        <StatusBadge status={g().status} />
        <span class="mono">{[g().model, g().provider].filter(Boolean).join(" · ") || g().engine || g().agentId || `generation ${g().generation}`}</span>
        <Show when={g().schemaRetry}>{(n) => <span class="muted">schema correction {n()}</span>}</Show>
        <Show when={usage()}>{(u) => <span class="mono muted" data-testid="generation-usage">{u()}</span>}</Show>
        <Show when={g().durationMs !== undefined}>
          <span class="muted">{formatDuration(g().durationMs)}</span>
        </Show>
      </header>
      <Show when={g().prompt}>
        {(p) => (
          <details class="transcript-prompt">
            <summary>Prompt</summary>
            <pre tabIndex={0}>{p()}</pre>
          </details>
        )}
      </Show>
      <For each={g().parts}>
        {(part) =>
          part.kind === "text" ? (
            <pre class="transcript-text" data-testid="transcript-text" tabIndex={0}>
              {part.text}
            </pre>
          ) : (
            <ToolCall call={part.call} />
          )
        }
      </For>
      <Show when={g().status === "running"}>
        <p class="muted transcript-working">The agent is working…</p>
      </Show>
      <Show when={g().error}>
        {(e) => (
          <p class="node-attempt-error">
            <strong>{e().code ?? "error"}</strong> {e().message}
          </p>
        )}
      </Show>
      <Show when={g().truncated}>
        <p class="muted">Cut at maxOutputBytes: the transcript holds the start of this generation.</p>
      </Show>
    </section>
  );
}

function ToolCall(props: { call: TranscriptToolCall }) {
  const c = () => props.call;
  const state = () => (c().ok === undefined ? "running" : c().ok ? "ok" : "refused");
  return (
    <div class="transcript-tool" data-testid="tool-call" data-tool={c().toolName} data-state={state()}>
      <div class="transcript-tool-head">
        <span class="badge tone-info mono">{c().toolName}</span>
        <Show when={state() === "running"}>
          <span class="muted">running…</span>
        </Show>
        <Show when={c().error}>
          {(e) => (
            <span class="node-attempt-error" data-testid="tool-error">
              <strong>{e().code ?? "error"}</strong> {e().message}
            </span>
          )}
        </Show>
        <Show when={c().sideEffect}>
          <span class="badge tone-warn">side effect</span>
        </Show>
        <Show when={c().durationMs !== undefined && c().durationMs !== null}>
          <span class="muted">{formatDuration(c().durationMs)}</span>
        </Show>
      </div>
      <Show when={c().input !== undefined}>
        <JsonBlock title="Arguments" value={c().input} />
      </Show>
      <Show when={c().output !== undefined}>
        <JsonBlock title="Result" value={c().output} />
      </Show>
    </div>
  );
}
