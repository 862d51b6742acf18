/**
 * @module node/server/ui/ui-config
 * Turns UI options into mounts: the built-in app (`dist/app/`) for `operatorUi`, `ui: true`
 * and a workflow UI without an entry; a bundled entry module (or a prebuilt directory) for
 * `ui: { entry }` (SPEC.md `GatewayUiConfig`, `WorkflowViewDefinition`).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { WorkflowViewDefinition } from "../../../core/engine/index.js";
import type { GatewayUiConfig, ResolvedGatewayOptions } from "../gateway-options.js";
import { builtAppDir } from "./app-dir.js";
import { entryBundleSource } from "./entry-bundle.js";
import { missingAppPage } from "./missing-app-page.js";
import { type UiMount, UiMounts } from "./ui-mounts.js";
import { withPgliteAssets } from "./pglite-assets.js";
import { staticDirSource } from "./ui-source.js";

/** Where a UI goes when its options do not say. */
export interface UiDefaults {
  path: string;
  title: string;
  props?: Record<string, unknown>;
}

/**
 * The built-in app (`dist/app/`, or the page saying how to build it) at `path`.
 * @example
 * new UiMounts().add(builtInAppMount({ path: "/console", title: "Flow console" }));
 */
export function builtInAppMount(at: UiDefaults, dir = builtAppDir()): UiMount {
  return { ...at, source: withPgliteAssets(staticDirSource(dir, () => missingAppPage(dir))) };
}

/**
 * The mount of a UI option. `entry` resolves against `root`: a directory is served as a
 * prebuilt UI (its `index.html` gets the boot data), a module is bundled with esbuild.
 * @example
 * uiConfigMount({ entry: "./ui/review.tsx" }, { path: "/workflows/review", title: "review" }, process.cwd());
 */
export function uiConfigMount(config: GatewayUiConfig | WorkflowViewDefinition, at: UiDefaults, root: string): UiMount {
  if (config === true || !config.entry) {
    const title = config === true ? at.title : (config.title ?? at.title);
    const props = config === true ? at.props : merge(at.props, config.props);
    return builtInAppMount({ path: config === true ? at.path : (config.path ?? at.path), title, ...(props ? { props } : {}) });
  }
  const entry = resolve(root, config.entry);
  const props = merge(at.props, config.props);
  const source = statSync(entry, { throwIfNoEntry: false })?.isDirectory() ? staticDirSource(entry, () => missingAppPage(entry)) : entryBundleSource(entry);
  return { path: config.path ?? at.path, title: config.title ?? at.title, ...(props ? { props } : {}), source };
}

/**
 * A Gateway's mounts from its options: `operatorUi` (default `/console`) and `ui` (at `/`).
 * @example
 * const ui = gatewayUiMounts(resolveGatewayOptions({ ui: true }, process.cwd()));
 * ui.paths; // ["/console", "/"]
 */
export function gatewayUiMounts(o: ResolvedGatewayOptions): UiMounts {
  const mounts = new UiMounts();
  if (o.operatorUi) mounts.add(builtInAppMount({ path: o.operatorUi.path, title: o.operatorUi.title ?? "Flow console", ...(o.operatorUi.props ? { props: o.operatorUi.props } : {}) }));
  if (o.ui) mounts.add(uiConfigMount(o.ui, { path: "/", title: "Flow" }, o.workspaceRoot));
  return mounts;
}

/**
 * The mount of a registered workflow's UI (default `/workflows/<key>`; boot props get `workflow`).
 * @example
 * mounts.add(workflowUiMount("review", { kind: "ui", entry: "./ui/review.tsx" }, process.cwd()));
 */
export function workflowUiMount(key: string, view: WorkflowViewDefinition, root: string, at: Partial<UiDefaults> = {}): UiMount {
  return uiConfigMount(view, { path: at.path ?? `/workflows/${encodeURIComponent(key)}`, title: at.title ?? key, props: { workflow: key, ...at.props } }, root);
}

function merge(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return a || b ? { ...a, ...b } : undefined;
}
