/**
 * @module ui/components/breadcrumbs
 * Where a view sits: a trail of links ending with the page itself (`aria-current`), e.g.
 * Runs / parent run / this child run. Long ids are cut with an ellipsis and keep their full
 * text as a title.
 */
import { A } from "@solidjs/router";
import { For, Show } from "solid-js";
import "./breadcrumbs.css";

/** One step of the trail: a link, or (the last) the page itself. */
export interface Crumb {
  label: string;
  href?: string;
  /** Shown in the monospace face (ids). */
  mono?: boolean;
  testId?: string;
}

/**
 * A breadcrumb trail.
 * @example
 * <Breadcrumbs trail={[{ label: "Runs", href: "/runs" }, { label: runId, mono: true }]} />
 */
export function Breadcrumbs(props: { trail: Crumb[] }) {
  return (
    <nav class="breadcrumbs" aria-label="Breadcrumb">
      <ol>
        <For each={props.trail}>
          {(c, i) => (
            <li>
              <Show when={i() > 0}>
                <span aria-hidden="true" class="breadcrumbs-sep">
                  /
                </span>
              </Show>
              <Show
                when={c.href && i() < props.trail.length - 1}
                fallback={
                  <span aria-current="page" classList={{ mono: c.mono }} title={c.label} data-testid={c.testId}>
                    {c.label}
                  </span>
                }
              >
                <A href={c.href!} classList={{ mono: c.mono }} title={c.label} data-testid={c.testId}>
                  {c.label}
                </A>
              </Show>
            </li>
          )}
        </For>
      </ol>
    </nav>
  );
}
