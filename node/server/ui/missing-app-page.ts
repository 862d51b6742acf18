/**
 * @module node/server/ui/missing-app-page
 * What a UI mount answers while the built-in app is not built (a clone before
 * `npm run build:app`), and while a UI entry fails to bundle: a plain page that says what
 * happened and what to do, never a crash.
 */
import { PATHS } from "../../../core/api/internal.js";
import { escapeHtml } from "./index-page.js";

/**
 * A 503 page saying how to build the app in `dir`.
 * @example
 * const res = missingAppPage("/srv/flow/dist/app");
 */
export function missingAppPage(dir: string): Response {
  return notice(503, "The Flow app is not built yet", [
    `This Gateway serves the app from <code>${escapeHtml(dir)}</code>, which has no <code>index.html</code>.`,
    "Build it in the durable-flow checkout with <code>npm run build:app</code> (or start everything with <code>npm start</code>, which builds it when needed), then reload this page.",
    `The API answers meanwhile: <code>${PATHS.health}</code>, <code>${PATHS.rpc}&lt;method&gt;</code>, <code>${PATHS.api}*</code>.`,
  ]);
}

/**
 * A 500 page showing why a UI entry module did not bundle; the next request tries again.
 * @example
 * const res = bundleErrorPage("./ui/review.tsx", "ui/review.tsx:3:7: ERROR: Expected \";\"");
 */
export function bundleErrorPage(entry: string, message: string): Response {
  return notice(500, "The UI did not build", [
    `Bundling <code>${escapeHtml(entry)}</code> failed:`,
    `<pre>${escapeHtml(message)}</pre>`,
    "Fix the file and reload: the Gateway bundles it again.",
  ]);
}

function notice(status: number, title: string, paragraphs: string[]): Response {
  const body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><meta name="color-scheme" content="light dark" />
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:4rem auto;padding:0 1rem}code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{white-space:pre-wrap;padding:.75rem;border:1px solid #8884;border-radius:6px}</style>
</head>
<body><main><h1>${escapeHtml(title)}</h1>
${paragraphs.map((p) => (p.startsWith("<pre>") ? p : `<p>${p}</p>`)).join("\n")}
</main></body>
</html>
`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}
