/**
 * @module ui/views/run-selection
 * Selecting rows of a list as people expect from a mail client: a click toggles one row and
 * becomes the anchor; a shift-click sets the whole range from the anchor to the clicked row
 * to the clicked row's new state; "select all" takes every row the filter shows. Pure (ids in,
 * a new selection out), so the list and the tests share it.
 */

/** A selection: the chosen ids and the anchor of the next shift-click. */
export interface Selection {
  ids: ReadonlySet<string>;
  anchor: string | null;
}

/** Nothing selected. */
export const EMPTY_SELECTION: Selection = { ids: new Set(), anchor: null };

/**
 * Toggles `id` (or, with `shift`, the range from the anchor to `id`) among the `ordered` ids
 * the list shows.
 * @example
 * let sel = toggleSelection(EMPTY_SELECTION, ["a", "b", "c"], "a", false);
 * sel = toggleSelection(sel, ["a", "b", "c"], "c", true); // a, b and c
 */
export function toggleSelection(sel: Selection, ordered: readonly string[], id: string, shift: boolean): Selection {
  const next = new Set(sel.ids);
  const on = !sel.ids.has(id);
  const from = shift && sel.anchor !== null ? ordered.indexOf(sel.anchor) : -1;
  const to = ordered.indexOf(id);
  if (from >= 0 && to >= 0) {
    const [lo, hi] = from < to ? [from, to] : [to, from];
    for (let i = lo; i <= hi; i++) {
      if (on) next.add(ordered[i]!);
      else next.delete(ordered[i]!);
    }
  } else if (on) {
    next.add(id);
  } else {
    next.delete(id);
  }
  return { ids: next, anchor: id };
}

/**
 * Selects every shown id, or clears the selection when all of them are selected already.
 * @example
 * toggleAll(sel, filteredIds);
 */
export function toggleAll(sel: Selection, ordered: readonly string[]): Selection {
  const all = ordered.length > 0 && ordered.every((id) => sel.ids.has(id));
  return all ? EMPTY_SELECTION : { ids: new Set(ordered), anchor: sel.anchor };
}

/**
 * Keeps only ids still shown (after the filter changed), so bulk actions never touch a
 * run the person cannot see.
 * @example
 * sel = keepShown(sel, filteredIds);
 */
export function keepShown(sel: Selection, ordered: readonly string[]): Selection {
  if (!sel.ids.size) return sel;
  const shown = new Set(ordered);
  const ids = new Set([...sel.ids].filter((id) => shown.has(id)));
  if (ids.size === sel.ids.size) return sel;
  return { ids, anchor: sel.anchor !== null && shown.has(sel.anchor) ? sel.anchor : null };
}
