/**
 * @module ui/views/run-detail/file-patch
 * How a task attempt changed one file (`getFileDiff`): git's unified diff, each line coloured
 * by what it is (added, removed, a hunk's header, the file's header), loaded when it is opened.
 * Says so when the file is binary, when the patch was cut at its size limit, and when the host
 * cannot show contents (the browser's engine lists changed files only).
 */
import { createResource, For, Show } from "solid-js";
import { errorText } from "../../components/error-text.js";
import { useConnection } from "../../flow-context.js";
import { patchLines } from "./patch-model.js";
import "./file-patch.css";

/**
 * The patch of `path` in one attempt.
 * @example
 * <FilePatch runId={runId} nodeId="review" iteration={0} attempt={1} path="doc.md" />
 */
export function FilePatch(props: { runId: string; nodeId: string; iteration: number; attempt: number; path: string }) {
  const { cols } = useConnection();
  const [patch] = createResource(
    () => [props.runId, props.nodeId, props.iteration, props.attempt, props.path] as const,
    ([runId, nodeId, iteration, attempt, path]) => cols.data.api.getFileDiff(runId, nodeId, path, { iteration, attempt }),
  );
  const lines = () => patchLines(patch()?.patch ?? "");
  return (
    <div class="file-patch" data-testid="file-patch" data-path={props.path}>
      <Show when={!patch.loading} fallback={<p class="muted">Loading {props.path}…</p>}>
        <Show when={!patch.error} fallback={<p class="error-banner">{errorText(patch.error)}</p>}>
          <Show when={patch()?.patch} fallback={<p class="muted">No change to its content in this attempt.</p>}>
            <pre>
              <For each={lines()}>{(line) => <span class={`patch-${line.kind}`}>{line.text || " "}</span>}</For>
            </pre>
            <Show when={patch()?.truncated}>
              <p class="muted">The diff is longer than this; it is cut here.</p>
            </Show>
          </Show>
        </Show>
      </Show>
    </div>
  );
}
