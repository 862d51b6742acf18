/**
 * @module node/server/ui/index-page
 * The page a UI mount answers for its root and its deep links: the app's `index.html` with a
 * `<base href>` for the mount, the title, and `window.__FLOW_BOOT__` (ui/boot.ts) in place of
 * the `<!--flow-boot-->` marker.
 */

/** What the page tells the app (ui/boot.ts `FlowBoot`). */
export interface UiBoot {
  /** The mount path (`/`, `/console`). */
  base: string;
  title: string;
  /** The Gateway (or serve app) that served the page. */
  gateway: { url: string };
  props?: Record<string, unknown>;
}

const MARKER = "<!--flow-boot-->";

/**
 * Writes the boot data into an index.html template. JSON is escaped so no value can close the
 * script element (`</script>`) or break the line.
 * @example
 * renderIndex(html, { base: "/console", title: "Ops", gateway: { url: "http://127.0.0.1:7331" } });
 */
export function renderIndex(template: string, boot: UiBoot): string {
  const baseHref = boot.base === "/" ? "/" : `${boot.base}/`;
  const script = `<script>window.__FLOW_BOOT__ = ${scriptJson(boot)};</script>`;
  let html = template.replace(/[ \t]*<base\s[^>]*>\r?\n?/i, "").replace(/[ \t]*<title>[\s\S]*?<\/title>\r?\n?/i, "");
  const head = `<base href="${escapeHtml(baseHref)}" />\n    <title>${escapeHtml(boot.title)}</title>\n    ${script}`;
  if (html.includes(MARKER)) html = html.replace(MARKER, head);
  else if (/<head[^>]*>/i.test(html)) html = html.replace(/<head[^>]*>/i, (tag) => `${tag}\n    ${head}`);
  else html = `${head}\n${html}`;
  return html;
}

/**
 * JSON safe inside an inline `<script>`.
 * @example
 * scriptJson({ note: "</script>" }); // '{"note":"\\u003c/script\\u003e"}'
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * Text safe in HTML content and attribute values.
 * @example
 * escapeHtml('a "b" <c>'); // "a &quot;b&quot; &lt;c&gt;"
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
