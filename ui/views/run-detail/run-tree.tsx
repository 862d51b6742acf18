/**
 * @module ui/views/run-detail/run-tree
 * The live task tree (ARIA tree): groups for the frame's structure (collapsible), tasks with
 * their state, iteration and attempts. Keyboard: Up/Down move, Left collapses or goes to the
 * parent, Right expands, Home/End, Enter or Space selects (the node panel follows, and the
 * URL keeps `?node=&iteration=`).
 */
import { createMemo, createSignal, For, Show } from "solid-js";
import { toneOf } from "../../components/status-badge.js";
import { groupTitle, type TreeItem, visibleItems } from "./tree-model.js";
import "./run-tree.css";

/**
 * The tree of a run.
 * @example
 * <RunTree items={items()} selected={selectedKey()} onSelect={(nodeId, iteration) => select(nodeId, iteration)} />
 */
export function RunTree(props: { items: TreeItem[]; selected: string | undefined; onSelect(nodeId: string, iteration: number): void }) {
  const [collapsed, setCollapsed] = createSignal<ReadonlySet<string>>(new Set());
  const [focused, setFocused] = createSignal<string>();
  const rows = createMemo(() => visibleItems(props.items, collapsed()));
  const current = () => {
    const keys = rows().map((r) => r.item.key);
    const f = focused();
    if (f && keys.includes(f)) return f;
    if (props.selected && keys.includes(props.selected)) return props.selected;
    return keys[0];
  };
  let list!: HTMLUListElement;
  const focusKey = (key: string | undefined) => {
    if (!key) return;
    setFocused(key);
    queueMicrotask(() => list.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus());
  };
  const toggle = (key: string, open?: boolean) =>
    setCollapsed((prev) => {
      const next = new Set(prev);
      const isOpen = !next.has(key);
      if (open ?? !isOpen) next.delete(key);
      else next.add(key);
      return next;
    });
  const onKeyDown = (e: KeyboardEvent) => {
    const list = rows();
    const i = list.findIndex((r) => r.item.key === current());
    if (i < 0) return;
    const row = list[i]!;
    const item = row.item;
    const handled = () => e.preventDefault();
    switch (e.key) {
      case "ArrowDown":
        handled();
        return focusKey(list[Math.min(list.length - 1, i + 1)]!.item.key);
      case "ArrowUp":
        handled();
        return focusKey(list[Math.max(0, i - 1)]!.item.key);
      case "Home":
        handled();
        return focusKey(list[0]!.item.key);
      case "End":
        handled();
        return focusKey(list.at(-1)!.item.key);
      case "ArrowRight":
        handled();
        if (item.kind === "group") {
          if (collapsed().has(item.key)) toggle(item.key, true);
          else focusKey(item.children[0]?.key);
        }
        return;
      case "ArrowLeft":
        handled();
        if (item.kind === "group" && !collapsed().has(item.key)) toggle(item.key, false);
        else if (row.parent) focusKey(row.parent.key);
        return;
      case "Enter":
      case " ":
        handled();
        if (item.kind === "task") props.onSelect(item.nodeId, item.iteration);
        else toggle(item.key);
        return;
    }
  };
  return (
    <ul class="run-tree" role="tree" aria-label="Tasks" ref={list} onKeyDown={onKeyDown}>
      <For each={rows()}>
        {(row) => {
          const item = row.item;
          const isCurrent = () => current() === item.key;
          if (item.kind === "group") {
            const open = () => !collapsed().has(item.key);
            return (
              <li
                role="treeitem"
                aria-level={row.depth + 1}
                aria-expanded={open()}
                tabIndex={isCurrent() ? 0 : -1}
                data-key={item.key}
                class="run-tree-row run-tree-group"
                style={{ "--depth": row.depth }}
                onClick={() => {
                  setFocused(item.key);
                  toggle(item.key);
                }}
              >
                <span class="run-tree-caret" aria-hidden="true">
                  {open() ? "▾" : "▸"}
                </span>
                <span class="run-tree-group-title">{groupTitle(item)}</span>
                <span class={`run-tree-dot ${toneOf(item.state)}`} aria-hidden="true" />
                <span class="run-tree-meta">
                  {item.finished}/{item.total}
                </span>
              </li>
            );
          }
          return (
            <li
              role="treeitem"
              aria-level={row.depth + 1}
              aria-selected={props.selected === item.key}
              tabIndex={isCurrent() ? 0 : -1}
              data-key={item.key}
              data-testid="tree-node"
              data-node-id={item.nodeId}
              data-iteration={item.iteration}
              data-state={item.state}
              class="run-tree-row run-tree-task"
              classList={{ selected: props.selected === item.key }}
              style={{ "--depth": row.depth }}
              onClick={() => {
                setFocused(item.key);
                props.onSelect(item.nodeId, item.iteration);
              }}
            >
              <span class={`run-tree-state badge ${toneOf(item.state)}`}>{item.state}</span>
              <span class="run-tree-label">
                <span class="mono">{item.nodeId}</span>
                <Show when={item.label && item.label !== item.nodeId}>
                  <span class="muted"> {item.label}</span>
                </Show>
              </span>
              <span class="run-tree-meta">
                <Show when={item.element !== "task"}>
                  <span class="run-tree-element">{item.element}</span>
                </Show>
                <Show when={item.iteration > 0}>
                  <span title="Loop iteration">iter {item.iteration}</span>
                </Show>
                <Show when={item.attempts > 1}>
                  <span title={`${item.attempts} attempts`}>×{item.attempts}</span>
                </Show>
              </span>
            </li>
          );
        }}
      </For>
    </ul>
  );
}
