/**
 * @module ui/views/run-detail/run-tree
 * The live task tree (ARIA tree): groups for the frame's structure (collapsible), tasks with
 * their state, iteration and attempts. Keyboard: Up/Down move, Left collapses or goes to the
 * parent, Right expands, Home/End, Enter or Space selects (the node panel follows, and the
 * URL keeps `?node=&iteration=`).
 */
import { createMemo, createSignal, Index, Show } from "solid-js";
import { toneOf } from "../../components/status-badge.js";
import { groupTitle, type TreeGroup, type TreeItem, type TreeTask, visibleItems } from "./tree-model.js";
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
  // Rows are kept by position (Index), not by object: a live refresh rebuilds the items, and
  // recreating the rows would take the keyboard focus away from the person.
  return (
    <ul class="run-tree" role="tree" aria-label="Tasks" ref={list} onKeyDown={onKeyDown}>
      <Index each={rows()}>
        {(row) => {
          const key = () => row().item.key;
          const isCurrent = () => current() === key();
          return (
            <Show when={row().item.kind === "task" ? (row().item as TreeTask) : undefined} fallback={<GroupRow group={row().item as TreeGroup} depth={row().depth} current={isCurrent()} open={!collapsed().has(key())} onClick={() => (setFocused(key()), toggle(key()))} />}>
              {(task) => (
                <li
                  role="treeitem"
                  aria-level={row().depth + 1}
                  tabIndex={isCurrent() ? 0 : -1}
                  data-key={key()}
                  style={{ "--depth": row().depth }}
                  aria-selected={props.selected === key()}
                  data-testid="tree-node"
                  data-node-id={task().nodeId}
                  data-iteration={task().iteration}
                  data-state={task().state}
                  class="run-tree-row run-tree-task"
                  classList={{ selected: props.selected === key() }}
                  onClick={() => {
                    setFocused(key());
                    props.onSelect(task().nodeId, task().iteration);
                  }}
                >
                  <span class={`run-tree-state badge ${toneOf(task().state)}`}>{task().state}</span>
                  <span class="run-tree-label">
                    <span class="mono">{task().nodeId}</span>
                    <Show when={task().label && task().label !== task().nodeId}>
                      <span class="muted"> {task().label}</span>
                    </Show>
                  </span>
                  <span class="run-tree-meta">
                    <Show when={task().element !== "task"}>
                      <span class="run-tree-element">{task().element}</span>
                    </Show>
                    <Show when={task().iteration > 0}>
                      <span title="Loop iteration">iter {task().iteration}</span>
                    </Show>
                    <Show when={task().attempts > 1}>
                      <span title={`${task().attempts} attempts`}>×{task().attempts}</span>
                    </Show>
                  </span>
                </li>
              )}
            </Show>
          );
        }}
      </Index>
    </ul>
  );
}

/** A structural row (Sequence, Parallel, ...): collapsible, with its progress. */
function GroupRow(props: { group: TreeGroup; depth: number; current: boolean; open: boolean; onClick(): void }) {
  return (
    <li
      role="treeitem"
      aria-level={props.depth + 1}
      aria-expanded={props.open}
      tabIndex={props.current ? 0 : -1}
      data-key={props.group.key}
      style={{ "--depth": props.depth }}
      class="run-tree-row run-tree-group"
      onClick={() => props.onClick()}
    >
      <span class="run-tree-caret" aria-hidden="true">
        {props.open ? "▾" : "▸"}
      </span>
      <span class="run-tree-group-title">{groupTitle(props.group)}</span>
      <span class={`run-tree-dot ${toneOf(props.group.state)}`} aria-hidden="true" />
      <span class="run-tree-meta">
        {props.group.finished}/{props.group.total}
      </span>
    </li>
  );
}
