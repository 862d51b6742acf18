/**
 * @module ui/boot
 * What the page that serves the app tells it (`window.__FLOW_BOOT__`, written into index.html
 * by the Gateway; absent when the app is served as static files): where it is mounted, its
 * title, and the Gateway that served it, if any. See docs/app.md.
 */

/** Boot data of the app. */
export interface FlowBoot {
  /** The path the app is mounted at (`/`, `/console`), without a trailing slash but for `/`. */
  base: string;
  /** Shown in the header and the tab. */
  title: string;
  /** The Gateway that served the page: offered as a workspace. */
  gateway?: { url: string; name?: string };
  /** Whether "This browser" (the engine in a worker) is offered (default true). */
  offline?: boolean;
  /** `operatorUi.props` / `ui.props` of the Gateway (JSON). */
  props?: Record<string, unknown>;
}

declare global {
  interface Window {
    __FLOW_BOOT__?: Partial<FlowBoot>;
  }
}

/**
 * The boot data, with defaults for a page served as static files.
 * @example
 * const { base, title } = readBoot();
 */
export function readBoot(): FlowBoot {
  const given = typeof window === "undefined" ? {} : (window.__FLOW_BOOT__ ?? {});
  const base = (given.base ?? "/").replace(/\/+$/, "") || "/";
  // The Vite dev server proxies a Gateway's API (vite.app.config.ts): offer it.
  const devGateway = import.meta.env?.DEV && !given.gateway ? { gateway: { url: location.origin, name: "Dev Gateway" } } : {};
  return { ...devGateway, ...given, base, title: given.title ?? "Flow" };
}
