/**
 * @module ui/views/run-detail/run-tree
 * The live task tree (ARIA tree): groups for the frame's structure (collapsible), tasks with
 * their state, iteration and attempts. Virtualized, so a run of 10,000 tasks opens as fast as
 * one of ten. The tree itself holds the keyboard focus and points at the active row with
 * `aria-activedescendant` (rows come and go as it scrolls, and live updates rebuild them, so
 * no row owns the focus): Up/Down move, Left collapses or goes to the parent, Right expands,
 * Home/End, Enter or Space selects (the node panel follows, and the URL keeps
 * `?node=&iteration=`). The selected row scrolls into view as the selection follows the live
 * task, unless the person scrolled it out of view.
 */
import { createVirtualizer } from "@tanstack/solid-virtual";
import { createEffect, createMemo, createSignal, createUniqueId, For, Show } from "solid-js";
import { shownNodeState } from "../../../core/engine/internal.js";
import { toneOf } from "../../components/status-badge.js";
import { groupTitle, type TreeGroup, type TreeItem, type TreeTask, visibleItems } from "./tree-model.js";
import "./run-tree.css";

/** Height of a row in px (run-tree.css sets the same). */
const ROW_PX = 30;

/**
 * The tree of a run.
 * @example
 * <RunTree items={items()} selected={selectedKey()} onSelect={(nodeId, iteration) => select(nodeId, iteration)} />
 */
export function RunTree(props: { items: TreeItem[]; selected: string | undefined; /** The run's status: a task an ended run never reached reads "not run". */ runStatus: string; onSelect(nodeId: string, iteration: number): void }) {
  const idPrefix = createUniqueId();
  const [collapsed, setCollapsed] = createSignal<ReadonlySet<string>>(new Set());
  const [active, setActive] = createSignal<string>();
  const rows = createMemo(() => visibleItems(props.items, collapsed()));
  const indexOf = createMemo(() => new Map(rows().map((r, i) => [r.item.key, i])));
  /** The active row: the one the keyboard moved to, else the selected one, else the first. */
  const current = () => {
    const a = active();
    if (a !== undefined && indexOf().has(a)) return a;
    if (props.selected !== undefined && indexOf().has(props.selected)) return props.selected;
    return rows()[0]?.item.key;
  };
  const rowId = (key: string) => `${idPrefix}-${indexOf().get(key) ?? 0}`;
  let scroller!: HTMLDivElement;
  const virtualizer = createVirtualizer({
    get count() {
      return rows().length;
    },
    getScrollElement: () => scroller,
    estimateSize: () => ROW_PX,
    overscan: 15,
  });
  const moveTo = (key: string | undefined) => {
    if (key === undefined) return;
    setActive(key);
    virtualizer.scrollToIndex(indexOf().get(key) ?? 0, { align: "auto" });
  };
  /** Whether the row of `key` is wholly in the tree's view (rows are ROW_PX high). */
  const inView = (key: string) => {
    const i = indexOf().get(key);
    if (i === undefined) return false;
    return i * ROW_PX >= scroller.scrollTop && (i + 1) * ROW_PX <= scroller.scrollTop + scroller.clientHeight;
  };
  /** The selection the tree last brought into view. */
  let followed: string | undefined;
  // The selected row comes into view when first known, and then follows the selection (which
  // follows the run's live task until a person picks one) while the row it leaves was in view:
  // someone reading elsewhere in the tree is not pulled back to the live task every second.
  createEffect(() => {
    const key = props.selected;
    const i = key === undefined ? undefined : indexOf().get(key);
    if (key === undefined || i === undefined || key === followed) return;
    const follow = followed === undefined || inView(followed);
    followed = key;
    if (follow) virtualizer.scrollToIndex(i, { align: "auto" });
  });
  const toggle = (key: string, open?: boolean) =>
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (open ?? next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const onKeyDown = (e: KeyboardEvent) => {
    const list = rows();
    const i = indexOf().get(current() ?? "") ?? -1;
    if (i < 0) return;
    const row = list[i]!;
    const item = row.item;
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(list[Math.min(list.length - 1, i + 1)]!.item.key),
      ArrowUp: () => moveTo(list[Math.max(0, i - 1)]!.item.key),
      Home: () => moveTo(list[0]!.item.key),
      End: () => moveTo(list.at(-1)!.item.key),
      ArrowRight: () => {
        if (item.kind !== "group") return;
        if (collapsed().has(item.key)) toggle(item.key, true);
        else moveTo(item.children[0]?.key);
      },
      ArrowLeft: () => {
        if (item.kind === "group" && !collapsed().has(item.key)) toggle(item.key, false);
        else moveTo(row.parent?.key);
      },
      Enter: () => (item.kind === "task" ? props.onSelect(item.nodeId, item.iteration) : toggle(item.key)),
      " ": () => keys.Enter!(),
    };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  };
  const activate = (key: string) => {
    setActive(key);
    const row = rows()[indexOf().get(key) ?? -1];
    if (!row) return;
    if (row.item.kind === "task") props.onSelect(row.item.nodeId, row.item.iteration);
    else toggle(key);
  };
  return (
    <div class="run-tree-scroll" ref={scroller}>
      <ul
        class="run-tree"
        role="tree"
        aria-label="Tasks (arrow keys move, Enter selects)"
        tabIndex={0}
        aria-activedescendant={current() !== undefined ? rowId(current()!) : undefined}
        onKeyDown={onKeyDown}
        style={{ height: `${virtualizer.getTotalSize()}px` }}
      >
        <For each={virtualizer.getVirtualItems()}>
          {(v) => {
            const row = () => rows()[v.index];
            return (
              <Show when={row()}>
                {(r) => (
                  <TreeRow
                    id={`${idPrefix}-${v.index}`}
                    item={r().item}
                    depth={r().depth}
                    top={v.start}
                    active={current() === r().item.key}
                    selected={props.selected === r().item.key}
                    open={!collapsed().has(r().item.key)}
                    runStatus={props.runStatus}
                    onClick={() => activate(r().item.key)}
                  />
                )}
              </Show>
            );
          }}
        </For>
      </ul>
    </div>
  );
}

/** One row: a task (with the data-testid e2e tests read) or a collapsible group. */
function TreeRow(props: { id: string; item: TreeItem; depth: number; top: number; active: boolean; selected: boolean; open: boolean; runStatus: string; onClick(): void }) {
  const style = () => ({ "--depth": props.depth, transform: `translateY(${props.top}px)` });
  return (
    <Show
      when={props.item.kind === "task" ? (props.item as TreeTask) : undefined}
      fallback={
        <li
          id={props.id}
          role="treeitem"
          aria-level={props.depth + 1}
          aria-expanded={props.open}
          class="run-tree-row run-tree-group"
          classList={{ active: props.active }}
          style={style()}
          onClick={() => props.onClick()}
        >
          <span class="run-tree-caret" aria-hidden="true">
            {props.open ? "▾" : "▸"}
          </span>
          <span class="run-tree-group-title">{groupTitle(props.item as TreeGroup)}</span>
          <span class={`run-tree-dot ${toneOf((props.item as TreeGroup).state)}`} aria-hidden="true" />
          <span class="run-tree-meta" data-testid="tree-group-progress">
            {(props.item as TreeGroup).finished}/{(props.item as TreeGroup).total}
          </span>
        </li>
      }
    >
      {(task) => (
        <li
          id={props.id}
          role="treeitem"
          aria-level={props.depth + 1}
          aria-selected={props.selected}
          data-testid="tree-node"
          data-node-id={task().nodeId}
          data-iteration={task().iteration}
          data-state={task().state}
          class="run-tree-row run-tree-task"
          classList={{ selected: props.selected, active: props.active }}
          style={style()}
          onClick={() => props.onClick()}
        >
          <span class={`run-tree-state badge ${toneOf(task().state)}`}>{shownNodeState(task().state, props.runStatus)}</span>
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
}
