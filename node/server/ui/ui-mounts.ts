/**
 * @module node/server/ui/ui-mounts
 * The UIs a server mounts by path (`/`, `/console`, `/workflows/<key>`), and the one function
 * that answers their requests: static files with their content types (hashed assets cached as
 * immutable), `sw.js` with `Service-Worker-Allowed` for its mount, and for the root and every
 * deep link the index page with the mount's `<base href>` and boot data (index-page.ts).
 * API routes keep precedence: their paths are never answered here. No token is needed for a
 * UI's files; the API it calls checks its own. See docs/app.md "Serving".
 */
import { FlowError } from "../../../core/errors.js";
import { contentTypeOf, isStaticAssetPath } from "./content-type.js";
import { renderIndex } from "./index-page.js";
import type { UiSource } from "./ui-source.js";

/** One UI at one path. */
export interface UiMount {
  /** `/` or a path without a trailing slash (`/console`). */
  path: string;
  title: string;
  props?: Record<string, unknown>;
  source: UiSource;
}

/** Paths of the API (domain API, RPC, metrics, webhooks, a team Gateway's shape proxy): never a UI's. */
const API_PATH = /^\/(?:v1(?:\/|$)|rpc$|health$|metrics$|webhooks\/|sync\/|workflows\/?$)/;

/**
 * Normalizes a mount path: leading slash, no trailing slash (but `/`).
 * @example
 * mountPath("console/"); // "/console"
 */
export function mountPath(path: string): string {
  const trimmed = `/${path}`.replace(/\/{2,}/g, "/").replace(/\/+$/, "");
  return trimmed || "/";
}

/**
 * The UI mounts of one server.
 * @example
 * const ui = new UiMounts().add({ path: "/console", title: "Flow", source });
 * const res = (await ui.serve(req)) ?? (await api.fetch(req));
 */
export class UiMounts {
  private mounts: UiMount[] = [];

  /** `reserved`: more paths an API answers (the serve app's `/run`, `/events`, ...), never a UI's. */
  constructor(private readonly reserved?: RegExp) {}

  private isApiPath(path: string): boolean {
    return API_PATH.test(path) || (this.reserved?.test(path) ?? false);
  }

  /** Adds a mount; INVALID_ARGUMENT when its path is taken or is an API path. */
  add(mount: UiMount): this {
    const path = mountPath(mount.path);
    if (path !== "/" && this.isApiPath(path)) throw new FlowError("INVALID_ARGUMENT", `A UI cannot be mounted at ${path}: the API answers there. Pick another path.`, { path });
    if (this.mounts.some((m) => m.path === path)) throw new FlowError("INVALID_ARGUMENT", `Two UIs are mounted at ${path}; give one of them another path (operatorUi.path, ui.path or register's ui.path).`, { path });
    this.mounts.push({ ...mount, path });
    this.mounts.sort((a, b) => b.path.length - a.path.length);
    return this;
  }

  /** The mounted paths, longest first. */
  get paths(): string[] {
    return this.mounts.map((m) => m.path);
  }

  /** Answers a GET or HEAD for a mounted UI; undefined for every other request. */
  readonly serve = async (req: Request): Promise<Response | undefined> => {
    if (req.method !== "GET" && req.method !== "HEAD") return undefined;
    const url = new URL(req.url);
    const path = url.pathname;
    if (this.isApiPath(path)) return undefined;
    const mount = this.mounts.find((m) => m.path === "/" || path === m.path || path.startsWith(`${m.path}/`));
    if (!mount) return undefined;
    let rel: string;
    try {
      rel = decodeURIComponent(path.slice(mount.path === "/" ? 1 : mount.path.length + 1));
    } catch {
      return text(400, "Bad path encoding.");
    }
    const head = req.method === "HEAD";
    if (rel !== "" && rel !== "index.html") {
      const file = await mount.source.file(rel);
      if (file) {
        const headers: Record<string, string> = {
          "content-type": contentTypeOf(rel),
          "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
          "x-content-type-options": "nosniff",
        };
        if (rel === "sw.js") headers["service-worker-allowed"] = mount.path === "/" ? "/" : `${mount.path}/`;
        return new Response(head ? null : (file.body as Uint8Array<ArrayBuffer>), { headers });
      }
      if (isStaticAssetPath(rel) || rel.startsWith("assets/")) return text(404, `No file ${path} in the UI mounted at ${mount.path}.`);
    }
    const template = await mount.source.index();
    if (template instanceof Response) return template;
    const html = renderIndex(template, { base: mount.path, title: mount.title, gateway: { url: url.origin }, ...(mount.props ? { props: mount.props } : {}) });
    return new Response(head ? null : html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
  };
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
